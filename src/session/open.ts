import { join } from 'node:path';
import { StartupError } from '../domain/errors.js';
import { locateProject, type Project } from '../domain/project.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { openStore } from '../store/open/openStore.js';
import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';
import { MAX_CONTEXT_BYTES, mergeContextFile } from './contextFile.js';
import { readWholeInProject, UnsafeFileError } from '../domain/safeOpen.js';
import { buildSessionPlan, type SessionPlan, type SessionRequest } from './plan.js';

export interface SessionOptions extends SessionRequest {
  project: string;
  db?: string | undefined;
  /** SPEC-070 context.json; flags beside it must agree with it. */
  context?: string | undefined;
  /** Ralph's task-session environment (RALPH_TASK_ID, ...) described this launch. */
  fromRalphEnv?: boolean | undefined;
}

/** Where SPEC-070 has Ralph write a session's context before each launch. */
export const projectContextFile = (project: Project): string => join(project.ralphDir, 'mcp', 'context.json');

/**
 * Flags → open project → session plan: the one code path behind `serve`, `plan` and `config`, so what
 * Ralph is told a session will have is exactly what the session gets.
 */
export function openSession(opts: SessionOptions): { store: RalphStore; plan: SessionPlan } {
  const project = locateProject(opts.project, opts.db);
  const request = describedSession(project, opts);
  const recipes = loadRecipes(project);
  const { store, schema } = openStore(project.dbPath);
  try {
    return { store, plan: buildSessionPlan(project, store, schema, request, recipes) };
  } catch (err) {
    store.close();
    throw err;
  }
}

/**
 * The session this launch describes: --context FILE, else the project's `.ralph/mcp/context.json`, else
 * the flags (or Ralph's environment). Whatever describes one is used or the launch refused, never
 * ignored: ignoring a context.json would serve the full suite, deletes included.
 */
function describedSession(project: Project, opts: SessionOptions): SessionRequest {
  // --context FILE may live anywhere: it is the operator's input (like --project), no tool takes a path
  // to it, and none of its fields is a path, so it cannot be used to reach files.
  if (opts.context) return mergeContextFile(opts.context, opts);
  const file = projectContextFile(project);
  let text: string | undefined;
  try {
    // A fixed name inside the project (a cloned repository may carry anything there): a regular file, never a link.
    text = readWholeInProject(project.root, file, MAX_CONTEXT_BYTES);
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new StartupError(`${err.message}; or launch with --context FILE`);
    throw err;
  }
  if (text === undefined) return opts;
  if (opts.fromRalphEnv) {
    throw new StartupError(
      `${file} describes a session, and so does Ralph's task-session environment (RALPH_TASK_ID, RALPH_SESSION_ID, RALPH_DB_PATH); remove the stale one`,
    );
  }
  return mergeContextFile(file, opts, text);
}

/** The tools that read the search index. */
export const SEARCH_USERS: ReadonlySet<string> = new Set(['search_tasks', 'create_task', 'spawn_subtasks']);

/**
 * Our tables and indexes before the first call: on a database Ralph wrote, a read-only session would
 * otherwise scan every list table per task read. Best-effort: a database we may not write is still served.
 */
export function prepareDatabase(store: RalphStore, log: Logger, plan: SessionPlan): void {
  try {
    store.ensureOwnTables();
    // The index is built once per project (triggers keep it current after): at a launch, not in a request.
    // Creating a task looks in it for duplicate titles (tools/duplicates.ts).
    if (plan.tools.some((t) => SEARCH_USERS.has(t.def.name))) store.search.prepareSearch();
  } catch (err) {
    log.warn(
      { err },
      'could not create ralph-mcp tables and indexes yet (reads on a large project are slower until a write succeeds)',
    );
  }
}
