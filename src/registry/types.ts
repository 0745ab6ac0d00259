import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Project } from '../project.js';
import type { RalphStore, Writer } from '../store/store.js';
import type { SignalPayload, Verb } from '../domain/signals.js';

export const CATEGORIES = ['tasks', 'comments', 'features', 'disciplines', 'project', 'state', 'session', 'signals'] as const;
export type Category = (typeof CATEGORIES)[number];

/** What the session was launched for; handlers read it to apply scope and fill defaults. */
export interface SessionScope {
  /** --session-id, else generated at launch; recorded with every write and signal. */
  sessionId: string;
  recipe: string | null;
  discipline: string | null;
  /** --task N, or the task this session claimed (claim_next_task binds it). */
  taskId: number | null;
  /** True when the task came from a claim: the session may claim again once it is done. */
  claimed: boolean;
  /** --discipline was given: discipline-changing tools may only target that discipline. */
  disciplineScoped: boolean;
  /** The recipe works on one task (task_execution, worker): without a task, no task may be changed. */
  ownTaskOnly: boolean;
  /** The feature the session is about (context.json) when it has no task: feature writes are limited to it. */
  feature: string | null;
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
}

/** Where a forwarding session sends its signals (server/ralphApi.ts). */
export interface SignalForwarder {
  send(taskId: number, verb: Verb, payload: SignalPayload): Promise<void>;
}

/** Who this session is, as the store records it with comments, signals and audit rows. */
export const writerOf = (s: SessionScope): Writer => ({ sessionId: s.sessionId, recipe: s.recipe, discipline: s.discipline, taskId: s.taskId });

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

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDef<any, any>;

export const defineTool = <I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> => def;

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const UPDATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Overwrites or removes what was there before. */
export const REPLACE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
export const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
