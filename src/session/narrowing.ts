import type { z } from 'zod';
import type { Recipe } from '../registry/recipes.js';
import type { AnyTool } from '../toolkit/tool.js';

/**
 * What a session's tools default to: its task (--task N), the task it will claim, or the one feature
 * it is about (context.json); none for a session about the whole project.
 */
export type Anchor = { kind: 'task'; id: number } | { kind: 'claims' } | { kind: 'feature'; name: string } | null;

/** How a session narrows one tool's input: the recipe's fields (in its order), then arguments made optional. */
export interface Narrowing {
  keep?: readonly string[];
  /** Arguments the session fills in when they are left out: the task's id, or the feature's name. */
  optional: readonly { arg: string; fills: 'task' | 'feature' }[];
}

export const isNarrowed = (n: Narrowing): boolean => n.keep !== undefined || n.optional.length > 0;

/** The build's key for a tool's narrowed listing (src/session/listing.ts). */
export const narrowingKey = (tool: string, n: Narrowing): string =>
  `${tool}|${n.keep?.join(',') ?? '*'}|${n.optional.map((o) => o.arg).join(',')}`;

/**
 * The narrowing a session applies to a tool, decided from the tool's argument names alone (so a listing
 * needs no zod schema): the recipe's field subset, and the task and feature arguments made optional
 * where the session has (or will claim) a task, or is about one feature.
 */
export function narrowingOf(def: AnyTool, recipe: Recipe | null, args: readonly string[], anchor: Anchor): Narrowing {
  const keep = recipe?.narrow?.[def.name];
  const present = new Set(keep ? keep.filter((k) => args.includes(k)) : args);
  const optional: { arg: string; fills: 'task' | 'feature' }[] = [];
  const fill = (arg: string | undefined, fills: 'task' | 'feature') => {
    if (arg && present.has(arg)) optional.push({ arg, fills });
  };
  if (anchor?.kind === 'task' || anchor?.kind === 'claims') {
    fill(def.taskTarget?.arg, 'task');
    fill(def.featureTarget?.arg, 'feature');
  } else if (anchor?.kind === 'feature') fill(def.featureTarget?.arg, 'feature');
  return keep ? { keep, optional } : { optional };
}

/** The note an optional argument's listing shows in place of its description. */
export function optionalNote(fills: 'task' | 'feature', anchor: Anchor): string {
  if (anchor?.kind === 'feature') return `Default and only allowed value: ${anchor.name} (this session's feature)`;
  const yours = anchor?.kind === 'task' ? `this session's task ${anchor.id}` : 'the task you claimed';
  return fills === 'task' ? `Task id; default: ${yours}` : `Default and only allowed value: the feature of ${yours}`;
}

/** THE narrowing: the tool's zod input schema with the session's narrowing applied. */
export function narrowInput(base: z.ZodObject, n: Narrowing): z.ZodObject {
  let input = base;
  if (n.keep) {
    const mask = Object.fromEntries(n.keep.map((k) => [k, true])) as Record<string, true> & Record<number, never>;
    input = input.pick(mask) as unknown as z.ZodObject;
  }
  for (const { arg } of n.optional) input = input.extend({ [arg]: (input.shape[arg] as z.ZodType).optional() });
  return input;
}
