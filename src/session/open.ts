import { Db } from '../db/database.js';
import { RALPH_USER_VERSION, inspectSchema, type SchemaInfo } from '../db/schema.js';
import { StartupError } from '../errors.js';
import { locateProject } from '../project.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { mergeContextFile } from './contextFile.js';
import { buildSessionPlan, type SessionPlan, type SessionRequest } from './plan.js';

/**
 * Opens Ralph's database and checks that it is one we understand; fails closed otherwise.
 *
 * The checks run on the new connection before Db.open switches the database to WAL, which rewrites
 * the file header: a database from a newer Ralph (another user_version, renamed or dropped columns)
 * is refused before anything is written. The refused file is left byte for byte as it was, and no
 * -wal or -shm file is left beside it (for a WAL database, SQLite removes them when the last
 * read-write connection closes; a read-only one would leave them).
 */
export function openProjectDb(dbPath: string, options: { readonly?: boolean } = {}): { db: Db; schema: SchemaInfo } {
  let schema: SchemaInfo | undefined;
  let opened = false;
  try {
    const db = Db.open(dbPath, options, (probe) => {
      opened = true;
      schema = inspectSchema(probe);
      checkSchema(dbPath, schema);
    });
    return { db, schema: schema! };
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError(`cannot ${opened ? 'read' : 'open'} database ${dbPath}: ${(err as Error).message}`);
  }
}

function checkSchema(dbPath: string, info: SchemaInfo): void {
  if (info.missingTables.length > 0) {
    throw new StartupError(`${dbPath} is not a Ralph database (missing tables: ${info.missingTables.join(', ')})`);
  }
  if (info.userVersion !== RALPH_USER_VERSION) {
    throw new StartupError(
      `${dbPath} has schema version ${info.userVersion}; this ralph-mcp understands version ${RALPH_USER_VERSION} (upgrade ralph-mcp, or open the project in a matching Ralph)`,
    );
  }
  if (info.drift.length > 0) {
    throw new StartupError(
      `${dbPath} does not have the columns of Ralph schema version ${RALPH_USER_VERSION}: ${info.drift.join('; ')}. It was left untouched; use a ralph-mcp that matches the Ralph that wrote it`,
    );
  }
}

export interface SessionOptions extends SessionRequest {
  project: string;
  db?: string | undefined;
  /** SPEC-070 context.json; flags beside it must agree with it. */
  context?: string | undefined;
}

/**
 * Flags → open project → session plan: the one code path behind `serve`, `plan` and `config`, so what
 * Ralph is told a session will have is exactly what the session gets.
 */
export function openSession(opts: SessionOptions): { db: Db; plan: SessionPlan } {
  // --context FILE may live anywhere, not only in the project: Ralph writes it (typically in a temp
  // directory, beside the per-session MCP config) and passes it on the command line, like --project and
  // --db. It is the operator's input, never the agent's: no tool takes a path to it, and nothing in it
  // is a path (its fields are names, a task id and tool names, all checked against the database and the
  // registry), so it cannot be used to reach files. Paths an agent gives are checked by domain/paths.ts.
  const request = opts.context ? mergeContextFile(opts.context, opts) : opts;
  const project = locateProject(opts.project, opts.db);
  const recipes = loadRecipes(project);
  const { db, schema } = openProjectDb(project.dbPath);
  try {
    return { db, plan: buildSessionPlan(project, db, schema, request, recipes) };
  } catch (err) {
    db.close();
    throw err;
  }
}
