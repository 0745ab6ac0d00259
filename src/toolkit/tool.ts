import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Project } from '../domain/project.js';
import type { RalphStore, Writer } from '../store/store.js';
import type { SignalPayload, Verb } from '../domain/signals.js';

export const CATEGORIES = [
  'tasks',
  'comments',
  'features',
  'disciplines',
  'project',
  'state',
  'session',
  'signals',
] as const;
export type Category = (typeof CATEGORIES)[number];

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

/**
 * How a tool relates to the session's task (`--task N`):
 * - `arg` is the argument naming the task; in a task session it may be omitted and defaults to N;
 * - `writes: true` means the tool changes that task, so any other task is refused (`out_of_scope`).
 */
export interface TaskTarget {
  arg: string;
  writes: boolean;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** One tool = one value: definition, schemas, annotations, handler. The registry is a list of these. */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  category: Category;
  /** Written for the model: what it does, when to use it. Never names another tool (it may be hidden). */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  taskTarget?: TaskTarget;
  /** Feature-changing tools: in a task session the argument defaults to, and must be, the task's feature. */
  featureTarget?: { arg: string };
  /** Discipline-changing tools: in a `--discipline D` session they may only target D. */
  disciplineTarget?: { arg: string };
  /**
   * Synchronous on purpose (better-sqlite3): a call runs start to finish without interleaving. The
   * server runs every handler of a tool that is not read-only inside ONE `BEGIN IMMEDIATE`
   * transaction, together with its audit row: all of its reads and writes commit together or not at all.
   */
  handler: (args: z.infer<I>, ctx: ToolContext) => z.infer<O>;
  /**
   * Ralph's signal verbs: the verb and the payload Ralph's API takes for these arguments. A session
   * that forwards signals to Ralph's app (RALPH_API_PORT) sends that instead of running the handler.
   */
  signal?: { verb: Verb; payload: (args: z.infer<I>) => SignalPayload };
}

// A tool of any input and output shape, as the registry holds them side by side.
// biome-ignore lint/suspicious/noExplicitAny: each tool's own types are checked where it is defined
export type AnyTool = ToolDef<any, any>;

/**
 * A tool as written: its schemas as functions that make them. A session builds a tool's input schema
 * when the tool is first called, and never its output schema (listings are built with the bundle): zod
 * schemas cost about 2.5 KB of heap and 14 µs each, and the registry holds about a thousand, of which a
 * session uses a few dozen.
 */
export type ToolSpec<I extends z.ZodObject, O extends z.ZodObject> = Omit<ToolDef<I, O>, 'input' | 'output'> & {
  input: () => I;
  output: () => O;
};

/** The tool, its `input` and `output` made on first use and kept. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolDef<I, O> {
  const { input, output, ...rest } = spec;
  return Object.defineProperties(rest, { input: memoGetter(input), output: memoGetter(output) }) as ToolDef<I, O>;
}

/** A value made on first use and kept: for schemas shared by several tools. */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}

function memoGetter<T>(make: () => T): PropertyDescriptor {
  const get = once(make);
  return { get, enumerable: true };
}

export const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const CREATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const UPDATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Overwrites or removes what was there before. */
export const REPLACE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
export const DELETE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
