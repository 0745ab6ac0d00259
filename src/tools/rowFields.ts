import { z } from 'zod';
import { invalid } from '../domain/errors.js';
import { once } from '../toolkit/tool.js';
import { alsoOneString, LIMITS } from './fields.js';

/**
 * The `fields` argument of the task lists (list_tasks, search_tasks, next_tasks): which keys each row
 * keeps, so that a model pays only for what it reads (docs/lists.md). Without it a row is today's row.
 * "brief" stands for BRIEF; `id` is always kept, since a row without it cannot be followed up.
 */
export const BRIEF = ['id', 'title', 'status'] as const;

/**
 * The list, or one string of names separated by commas ("brief", "id,title"); the listing shows the list.
 * Bounds as for any list of names (README's Limits), though a row has about ten keys.
 */
export const fieldsArg = once(() =>
  alsoOneString(
    z.array(z.string().min(1).max(LIMITS.name)).min(1).max(LIMITS.listItems).describe('brief, or row keys'),
    ',',
  ).optional(),
);

/** Keys kept with another one: a list's truncation marker goes with the list it marks. */
const COMPANIONS: Readonly<Record<string, string>> = { truncated_lists: 'depends_on' };

/** The keys a row keeps, or null for the whole row; unknown names are refused listing the valid ones. */
export function rowKeys(given: readonly string[] | undefined, valid: readonly string[]): ReadonlySet<string> | null {
  if (given === undefined) return null;
  const unknown = given.filter((f) => f !== 'brief' && !valid.includes(f));
  if (unknown.length > 0) {
    throw invalid(
      `fields: unknown ${unknown.map((f) => JSON.stringify(f)).join(', ')}; valid: brief (${BRIEF.join(', ')}), ${valid.join(', ')}`,
      { valid: ['brief', ...valid] },
    );
  }
  return new Set(['id', ...given.flatMap((f) => (f === 'brief' ? BRIEF : [f]))]);
}

/** Whether a row keeps `key` (always, without a selection). */
export const keeps = (keys: ReadonlySet<string> | null, key: string): boolean => keys === null || keys.has(key);

/** The row with only the kept keys, in the row's own order. */
export function pickRow<T extends { id: number }>(
  row: T,
  keys: ReadonlySet<string> | null,
): Partial<T> & Pick<T, 'id'> {
  if (keys === null) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (keys.has(k) || keys.has(COMPANIONS[k] ?? '')) out[k] = v;
  return out as Partial<T> & Pick<T, 'id'>;
}
