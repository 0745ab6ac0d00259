import type { Logger } from 'pino';
import type { Project } from '../domain/project.js';
import type { SignalPayload, Verb } from '../domain/signals.js';
import type { RalphStore, Writer } from '../store/store.js';

/**
 * What the session was launched for; handlers read it to apply scope and fill defaults.
 * Nothing in it is re-read from rows the session can change: a scope that followed the task's row
 * would let a session widen itself with its own writes (move its task, write the new feature, move back).
 */
export interface SessionScope {
  /** --session-id, else generated at launch; recorded with every write and signal. */
  sessionId: string;
  recipe: string | null;
  /** --discipline, else the task's (at launch or claim): who signs this session's comments. */
  discipline: string | null;
  /** --task N, or the task this session claimed (claim_next_task binds it). */
  taskId: number | null;
  /** True when the task came from a claim: the session may claim again once it is done. */
  claimed: boolean;
  /**
   * The session took a lease on its task (a claim, or a --task session's first write): its calls renew
   * it, and its writes are refused once another session has taken the task over.
   */
  leased: boolean;
  /** Launched with --task in a recipe whose sessions lease their task at their first write. */
  leasesTask: boolean;
  /** --discipline was given: discipline-changing tools may only target that discipline. */
  disciplineScoped: boolean;
  /** The recipe works on one task (task_execution, worker): without a task, no task may be changed. */
  ownTaskOnly: boolean;
  /**
   * The only feature this session may change: its task's as it was at launch (or at the claim), else
   * the one its context names; null: any (a session with no task and no feature).
   */
  feature: string | null;
  /** What the launch fixed, so a claim can start again from it (never from what an earlier claim set). */
  launch: { feature: string | null; discipline: string | null };
  /**
   * Tools removed after launch (a claimed task's discipline overrides): hidden exactly like the
   * plan's disabled ones. Only ever grows: a claim narrows a session, never widens it.
   */
  removed: Set<string>;
  /** How long a claim's lease runs without a call of this session (--lease-seconds). */
  leaseMs: number;
}

export interface ToolContext {
  /** Ralph's database, whichever generation: the only way tools reach it. */
  store: RalphStore;
  project: Project;
  session: SessionScope;
  log: Logger;
  /**
   * Set when signals go to Ralph's app (RALPH_API_PORT): the session then writes nothing to the
   * database itself, not even an audit row, and the signal verbs are sent there.
   */
  forward?: SignalForwarder | undefined;
  /**
   * Changes the session once the call's write has committed (never if it rolls back): session state
   * may change only then, so a claim whose transaction fails leaves the session holding nothing.
   */
  onCommit(patch: SessionPatch): void;
  /**
   * The tools a discipline's overrides remove, read as strictly as a launch reads them; throws a
   * ToolError when they cannot be read (fail closed). Given by the server, which knows the registry.
   */
  disciplineOverrides(discipline: string): string[];
}

/** What a call may change in its session: data, applied only after its write commits. */
export interface SessionPatch {
  taskId?: number | null;
  claimed?: boolean;
  leased?: boolean;
  feature?: string | null;
  discipline?: string | null;
  /** More tools to hide (a claimed task's discipline overrides); nothing is ever un-hidden. */
  remove?: readonly string[];
}

export function applySessionPatch(session: SessionScope, patch: SessionPatch): void {
  const { remove, ...fields } = patch;
  Object.assign(session, fields);
  for (const name of remove ?? []) session.removed.add(name);
}

/** The session as it will be once `patches` apply: who the call's audit row names. */
export function patchedSession(session: SessionScope, patches: readonly SessionPatch[]): SessionScope {
  if (patches.length === 0) return session;
  const draft = { ...session, removed: new Set(session.removed) };
  for (const p of patches) applySessionPatch(draft, p);
  return draft;
}

/** The base context's onCommit: outside callTool's transaction there is nothing to wait for. */
export const applyNow =
  (session: SessionScope) =>
  (patch: SessionPatch): void =>
    applySessionPatch(session, patch);

/** Where a forwarding session sends its signals (server/ralphApi.ts). */
export interface SignalForwarder {
  send(taskId: number, verb: Verb, payload: SignalPayload): Promise<void>;
}

/** Who this session is, as the store records it with comments, signals and audit rows. */
export const writerOf = (s: SessionScope): Writer => ({
  sessionId: s.sessionId,
  recipe: s.recipe,
  discipline: s.discipline,
  taskId: s.taskId,
});

/** A short label for state-file entries: "task_execution · frontend · task #7". */
export function sessionLabel(s: SessionScope): string {
  const parts = [s.recipe ?? 'ralph-mcp'];
  if (s.discipline) parts.push(s.discipline);
  if (s.taskId !== null) parts.push(`task #${s.taskId}`);
  return parts.join(' · ');
}
