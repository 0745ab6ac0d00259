import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import Database from 'better-sqlite3';
import { Db } from '../db/database.js';
import { RALPH_USER_VERSION, inspectSchema, type SchemaInfo } from '../db/schema.js';
import { StartupError } from '../errors.js';
import { createLogger, type LogLevel } from '../log.js';
import { locateProject } from '../project.js';
import { createMcpServer } from '../server/createServer.js';
import { buildSessionPlan, type SessionRequest } from '../session/plan.js';

export interface ServeOptions extends SessionRequest {
  project: string;
  db?: string | undefined;
  logLevel: LogLevel;
  logFile?: string | undefined;
}

/** Opens Ralph's database and checks that it is one we understand; fails closed otherwise. */
export function openProjectDb(dbPath: string): { db: Db; schema: SchemaInfo } {
  let db: Db;
  try {
    db = Db.open(dbPath);
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

export async function serve(opts: ServeOptions): Promise<void> {
  const log = createLogger(opts.logLevel, opts.logFile);
  const project = locateProject(opts.project, opts.db);
  const { db, schema } = openProjectDb(project.dbPath);
  let plan;
  try {
    plan = buildSessionPlan(project, db, schema, opts);
  } catch (err) {
    db.close();
    throw err;
  }
  for (const w of plan.warnings) log.warn(w);
  log.info(
    { session_id: plan.scope.sessionId, project: project.root, db: project.dbPath, recipe: plan.recipe?.name ?? null, discipline: plan.discipline, task: plan.task?.id ?? null, tools: plan.tools.length },
    'session started',
  );

  const server = createMcpServer(plan, db, log);
  const transport = new StdioServerTransport();
  let closed = false;
  const shutdown = (reason: string) => {
    if (closed) return;
    closed = true;
    log.info({ reason }, 'session ended');
    void server.close().catch(() => undefined);
    db.close();
  };
  transport.onclose = () => shutdown('transport closed');
  process.stdin.on('end', () => shutdown('stdin closed'));
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      shutdown(sig);
      process.exit(0);
    });
  }
  await server.connect(transport);
}
