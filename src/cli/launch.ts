import { StartupError } from '../domain/errors.js';
import { FS_ERRORS, verbOf } from '../domain/fileErrors.js';
import type { ServeArgv } from './serveArgs.js';

/**
 * What both command-line paths share (cli.ts's serving fast path and commands.ts's yargs program):
 * the one-line failure, the session flags resolved against Ralph's task-session environment, and
 * the default project.
 */

/** Any launch problem ends as ONE line on stderr and a non-zero exit (2), before any MCP traffic. */
export function fail(message: string, exitCode = 2): never {
  process.stderr.write(`ralph-mcp: error: ${message}\n`);
  process.exit(exitCode);
}

export async function run(action: () => Promise<void> | void): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (err instanceof StartupError) fail(err.message, err.exitCode);
    const plain = inWords(err);
    if (plain) fail(plain);
    fail(`unexpected failure: ${(err as Error)?.stack?.split('\n')[0] ?? String(err)}`, 1);
  }
}

/** A file-system or read-only-database failure as one actionable line; undefined for anything else. */
export function inWords(err: unknown): string | undefined {
  const e = err as { code?: unknown; syscall?: unknown; path?: unknown; message?: unknown };
  if (typeof e?.code !== 'string') return undefined;
  if (e.code.startsWith('SQLITE_READONLY')) {
    return `cannot write the database: it is read-only for this user or on this file system (${e.code}); check the permissions of the database file and of its folder (SQLite writes a journal beside it)`;
  }
  const words = FS_ERRORS[e.code]?.words;
  if (!words || typeof e.path !== 'string') return undefined;
  const fix =
    e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS'
      ? '; run as a user who may write there, or choose another --project'
      : '';
  return `cannot ${verbOf(e.syscall)} ${e.path}: ${words} (${e.code})${fix}`;
}

export const defaultProject = (): string => process.env.RALPH_PROJECT || process.cwd();

export type SessionArgv = {
  project?: string | undefined;
  recipe?: string | undefined;
  discipline?: string | undefined;
  task?: string | undefined;
  'session-id'?: string | undefined;
  context?: string | undefined;
  db?: string | undefined;
  'read-only'?: boolean | undefined;
  /** A comma list; yargs gives a list of them when the flag is repeated. */
  tools?: string | string[] | undefined;
  'exclude-tools'?: string | string[] | undefined;
};

/** A flag's comma list (or repeated flag's lists) as names; undefined when the flag was not given. */
export const commaList = (v: unknown): string[] | undefined =>
  v === undefined
    ? undefined
    : ([] as unknown[])
        .concat(v)
        .flatMap((x) => String(x).split(','))
        .map((s) => s.trim())
        .filter(Boolean);

/** --read-only, --tools, --exclude-tools: they narrow whatever describes the session (session/toolFilters.ts). */
export const toolFilterFlags = (argv: SessionArgv) => ({
  readOnly: argv['read-only'] === true ? true : undefined,
  tools: commaList(argv.tools),
  excludeTools: commaList(argv['exclude-tools']),
});

/**
 * The session the flags describe, or, when Ralph's task-session environment is set (RALPH_TASK_ID,
 * RALPH_SESSION_ID, RALPH_DB_PATH), the one it describes, the flags only allowed to agree with it.
 */
export async function sessionOptions(argv: SessionArgv) {
  const flags = {
    project: argv.project,
    context: argv.context,
    recipe: argv.recipe,
    discipline: argv.discipline,
    task: argv.task,
    sessionId: argv['session-id'],
    db: argv.db,
  };
  const filters = toolFilterFlags(argv);
  const { readRalphEnv, ralphEnvSession } = await import('../session/ralphEnv.js');
  const launch = readRalphEnv(process.env);
  if (launch) return { ...ralphEnvSession(launch, flags), ...filters };
  return { ...flags, ...filters, project: argv.project ?? defaultProject(), apiPort: null };
}

/**
 * A refused serving launch over stdio: the one line on stderr, and the same line as the answer to the
 * client's initialize (cli/refusal.ts), then exit 2. Socket and HTTP launches have no client yet.
 */
export async function refuseServing(message: string, exitCode = 2): Promise<never> {
  const { answerInitializeWithRefusal } = await import('./refusal.js');
  process.stderr.write(`ralph-mcp: error: ${message}\n`);
  await answerInitializeWithRefusal(message);
  process.exit(exitCode);
}

/** Serves the session the flags describe (cli/serve.ts, loaded now). */
export async function serveCommand(argv: ServeArgv): Promise<void> {
  try {
    const { serve } = await import('./serve.js');
    await serve({
      ...(await sessionOptions(argv)),
      logLevel: argv['log-level'],
      logFile: argv['log-file'],
      transport: argv.transport,
      socket: argv.socket,
      host: argv.host,
      port: argv.port,
      authToken: argv['auth-token'],
      leaseSeconds: argv['lease-seconds'],
    });
  } catch (err) {
    if (err instanceof StartupError && argv.transport === 'stdio') await refuseServing(err.message, err.exitCode);
    await run(() => {
      throw err;
    });
  }
}
