import type { z } from 'zod';
import type { Generation } from '../store/records.js';
import type { SignalForwarder, ToolContext } from './context.js';

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
   * The schema generations the tool exists on (default: every one): what it reads or writes is not in
   * the others. A session on another generation lacks it, as if no recipe allowed it (session/plan.ts).
   */
  generations?: readonly Generation[];
  /**
   * A reading tool that first brings a derived index of ours up to date (a write). Other reading tools
   * run inside one read snapshot (store.read); this one takes its own after that write.
   */
  updatesIndex?: true;
  /**
   * Synchronous on purpose (better-sqlite3): a call runs start to finish without interleaving. The
   * server runs every handler of a tool that is not read-only inside ONE `BEGIN IMMEDIATE`
   * transaction, together with its audit row: all of its reads and writes commit together or not at all.
   * A read-only tool's handler runs inside one read transaction: its statements see one state.
   */
  handler: (args: z.infer<I>, ctx: ToolContext) => z.infer<O>;
  /**
   * Ralph's signal verbs: what the tool does in a session whose signals Ralph's app records
   * (RALPH_API_PORT) instead of running `handler`. It writes nothing to the database.
   */
  forwarded?: (args: z.infer<I>, ctx: ToolContext, to: SignalForwarder) => Promise<z.infer<O>>;
}

// A tool of any input and output shape, as the registry holds them side by side.
// biome-ignore lint/suspicious/noExplicitAny: each tool's own types are checked where it is defined
export type AnyTool = ToolDef<any, any>;

/** Whether a tool exists on a database of this generation (its `generations`, else every one). */
export const existsOn = (def: Pick<AnyTool, 'generations'>, generation: Generation): boolean =>
  def.generations === undefined || def.generations.includes(generation);

/**
 * A tool as written: its schemas as functions that make them, so that a session builds only the input
 * schemas of the tools it calls, and no output schema (listings are built with the bundle).
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
