import Database from 'better-sqlite3';
import { Db } from '../db/database.js';
import { RALPH_USER_VERSION, inspectSchema, type SchemaInfo } from '../db/schema.js';
import { StartupError } from '../errors.js';
import { locateProject } from '../project.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { mergeContextFile } from './contextFile.js';
import { buildSessionPlan, type SessionPlan, type SessionRequest } from './plan.js';

/** Opens Ralph's database and checks that it is one we understand; fails closed otherwise. */
export function openProjectDb(dbPath: string, options: { readonly?: boolean } = {}): { db: Db; schema: SchemaInfo } {
  let db: Db;
  try {
    db = Db.open(dbPath, options);
  } catch (err) {
    throw new StartupError(`cannot open database ${dbPath}: ${(err as Error).message}`);
  }
  let info: SchemaInfo;
  try {
    info = inspectSchema(db);
    if (info.missingTables.length > 0) {
      throw new StartupError(`${dbPath} is not a Ralph database (missing tables: ${info.missingTables.join(', ')})`);
    }
    if (info.userVersion !== RALPH_USER_VERSION) {
      throw new StartupError(
        `${dbPath} has schema version ${info.userVersion}; this ralph-mcp understands version ${RALPH_USER_VERSION} (upgrade ralph-mcp, or open the project in a matching Ralph)`,
      );
    }
  } catch (err) {
    db.close();
    if (err instanceof Database.SqliteError) throw new StartupError(`cannot read database ${dbPath}: ${err.message}`);
    throw err;
  }
  return { db, schema: info };
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
