import { StartupError } from '../errors.js';
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
    fail(`unexpected failure: ${(err as Error)?.stack?.split('\n')[0] ?? String(err)}`, 1);
  }
}

export const defaultProject = (): string => process.env.RALPH_PROJECT || process.cwd();

export type SessionArgv = { project?: string | undefined; recipe?: string | undefined; discipline?: string | undefined; task?: string | undefined; 'session-id'?: string | undefined; context?: string | undefined; db?: string | undefined };

/**
 * The session the flags describe, or, when Ralph's task-session environment is set (RALPH_TASK_ID,
 * RALPH_SESSION_ID, RALPH_DB_PATH), the one it describes, the flags only allowed to agree with it.
 */
export async function sessionOptions(argv: SessionArgv) {
  const flags = { project: argv.project, context: argv.context, recipe: argv.recipe, discipline: argv.discipline, task: argv.task, sessionId: argv['session-id'], db: argv.db };
  const { readRalphEnv, ralphEnvSession } = await import('../session/ralphEnv.js');
  const launch = readRalphEnv(process.env);
  if (launch) return ralphEnvSession(launch, flags);
  return { ...flags, project: argv.project ?? defaultProject(), apiPort: null };
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
    await serve({ ...(await sessionOptions(argv)), logLevel: argv['log-level'], logFile: argv['log-file'], transport: argv.transport, socket: argv.socket, host: argv.host, port: argv.port, authToken: argv['auth-token'], leaseSeconds: argv['lease-seconds'] });
  } catch (err) {
    if (err instanceof StartupError && argv.transport === 'stdio') await refuseServing(err.message, err.exitCode);
    await run(() => {
      throw err;
    });
  }
}
