import { basename, dirname, resolve } from 'node:path';
import { StartupError } from '../domain/errors.js';
import type { SessionOptions } from './open.js';

/**
 * The environment Ralph gives the signal server it launches beside a task session ("ralph-signals"),
 * with which ralph-mcp serves that session's `signals` recipe without flags. It describes a session, so
 * it is used or the launch refused, never ignored: anything missing, malformed or contradicted fails closed.
 */

export const SIGNALS_RECIPE = 'signals';

export interface RalphEnvLaunch {
  taskId: number;
  sessionId: string;
  dbPath: string;
  /** Ralph's local API (127.0.0.1): signals are sent there instead of written here. */
  apiPort: number | null;
}

const REQUIRED = ['RALPH_TASK_ID', 'RALPH_SESSION_ID', 'RALPH_DB_PATH'] as const;

/** The launch Ralph's environment describes, or null when it describes none (no RALPH_TASK_ID/SESSION_ID/DB_PATH). */
export function readRalphEnv(env: NodeJS.ProcessEnv): RalphEnvLaunch | null {
  const given = REQUIRED.filter((k) => env[k] !== undefined);
  if (given.length === 0) return null;
  const missing = REQUIRED.filter((k) => env[k] === undefined || env[k] === '');
  if (missing.length > 0) {
    throw new StartupError(
      `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set, but ${given.join(', ')} ${given.length > 1 ? 'are' : 'is'}: Ralph's task-session environment needs all of ${REQUIRED.join(', ')}`,
    );
  }
  const task = env.RALPH_TASK_ID!;
  if (!/^[1-9]\d{0,14}$/.test(task))
    throw new StartupError(`RALPH_TASK_ID must be a positive integer task id, got ${JSON.stringify(task)}`);
  const sessionId = env.RALPH_SESSION_ID!;
  if (!/^[\w.:@+-]{1,128}$/.test(sessionId))
    throw new StartupError(
      `RALPH_SESSION_ID must be 1-128 characters of letters, digits and . : @ + - _, got ${JSON.stringify(sessionId.slice(0, 140))}`,
    );
  const dbPath = env.RALPH_DB_PATH!;
  if (!dbPath.startsWith('/'))
    throw new StartupError(`RALPH_DB_PATH must be an absolute path to ralph.db, got ${JSON.stringify(dbPath)}`);
  let apiPort: number | null = null;
  const port = env.RALPH_API_PORT;
  if (port !== undefined && port !== '') {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)
      throw new StartupError(`RALPH_API_PORT must be a port number 1-65535, got ${JSON.stringify(port)}`);
    apiPort = Number(port);
  }
  return { taskId: Number(task), sessionId, dbPath: resolve(dbPath), apiPort };
}

/** The flags of a launch, as given (undefined: not given). */
export interface LaunchFlags {
  project?: string | undefined;
  recipe?: string | undefined;
  discipline?: string | undefined;
  task?: string | undefined;
  sessionId?: string | undefined;
  context?: string | undefined;
  db?: string | undefined;
}

/**
 * The session the environment describes, with the flags given beside it (each must agree with it).
 * The project is the folder holding `.ralph/db/` when RALPH_DB_PATH lies there, else --project.
 */
export function ralphEnvSession(
  launch: RalphEnvLaunch,
  flags: LaunchFlags,
): SessionOptions & { apiPort: number | null } {
  const disagree = (flag: string, given: string, wanted: string, variable: string) =>
    new StartupError(
      `--${flag} ${JSON.stringify(given)} disagrees with ${variable}=${JSON.stringify(wanted)} (Ralph's task-session environment); drop the flag or fix the environment`,
    );
  if (flags.recipe !== undefined && flags.recipe !== SIGNALS_RECIPE)
    throw disagree('recipe', flags.recipe, SIGNALS_RECIPE, 'RALPH_TASK_ID (a signals session)');
  if (flags.task !== undefined && flags.task !== String(launch.taskId))
    throw disagree('task', flags.task, String(launch.taskId), 'RALPH_TASK_ID');
  if (flags.sessionId !== undefined && flags.sessionId !== launch.sessionId)
    throw disagree('session-id', flags.sessionId, launch.sessionId, 'RALPH_SESSION_ID');
  if (flags.db !== undefined && resolve(flags.db) !== launch.dbPath)
    throw disagree('db', flags.db, launch.dbPath, 'RALPH_DB_PATH');
  if (flags.context !== undefined)
    throw new StartupError(
      "--context cannot be combined with Ralph's task-session environment (RALPH_TASK_ID, RALPH_SESSION_ID, RALPH_DB_PATH), which already describes the session",
    );
  const dbDir = dirname(launch.dbPath);
  const fromDb =
    basename(dbDir) === 'db' && basename(dirname(dbDir)) === '.ralph' ? dirname(dirname(dbDir)) : undefined;
  if (flags.project !== undefined && fromDb !== undefined && resolve(flags.project) !== fromDb)
    throw disagree('project', flags.project, fromDb, 'RALPH_DB_PATH');
  const project = fromDb ?? flags.project;
  if (project === undefined)
    throw new StartupError(
      `RALPH_DB_PATH ${launch.dbPath} is not inside a project's .ralph/db/ folder; pass --project DIR`,
    );
  return {
    project,
    db: launch.dbPath,
    recipe: SIGNALS_RECIPE,
    discipline: flags.discipline,
    task: String(launch.taskId),
    sessionId: launch.sessionId,
    apiPort: launch.apiPort,
    fromRalphEnv: true,
  };
}
