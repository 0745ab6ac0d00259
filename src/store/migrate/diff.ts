import { isDeepStrictEqual } from 'node:util';

/**
 * Where two records read back differently, field by field, for a refusal a person can act on: the path of
 * each differing value (`completed`, `tags[2]`, `learnings[0].reason`) and both values.
 */

export interface FieldDiff {
  path: string;
  was: unknown;
  now: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The differing leaves of two values (the whole value when one side is not a record or list). */
export function fieldDiffs(was: unknown, now: unknown, path = ''): FieldDiff[] {
  if (isDeepStrictEqual(was, now)) return [];
  if (Array.isArray(was) && Array.isArray(now)) {
    const n = Math.max(was.length, now.length);
    return Array.from({ length: n }, (_, i) => fieldDiffs(was[i], now[i], `${path}[${i}]`)).flat();
  }
  if (isRecord(was) && isRecord(now)) {
    const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])];
    return keys.flatMap((k) => fieldDiffs(was[k], now[k], path ? `${path}.${k}` : k));
  }
  return [{ path, was, now }];
}

/** Up to this many characters of a value are shown whole; a longer text is shown around its first difference. */
const WHOLE = 400;
const AROUND = 80;

/** A value as JSON (`absent` for a missing field), a long text cut around `at` with its length said. */
function shown(v: unknown, at: number): string {
  if (v === undefined) return 'absent';
  const text = JSON.stringify(v) ?? String(v);
  if (text.length <= WHOLE) return text;
  if (typeof v !== 'string') return `${text.slice(0, WHOLE)}… (${text.length} characters of JSON)`;
  const from = Math.max(0, at - AROUND);
  const to = Math.min(v.length, at + AROUND);
  const window = JSON.stringify(v.slice(from, to));
  const cut = `${from > 0 ? '…' : ''}${window}${to < v.length ? '…' : ''}`;
  return `${cut} (${v.length} characters; from character ${from + 1})`;
}

/** Index of the first character where two texts differ. */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** One line per differing field: `task 5: completed: "2026-01-01T10:00:00Z" became "2026-01-01"`. */
export function describeDiffs(what: string, was: unknown, now: unknown): string[] {
  if (now === undefined) return [`${what}: missing after migration (it was ${shown(was, 0)})`];
  return fieldDiffs(was, now).map((d) => {
    const at = typeof d.was === 'string' && typeof d.now === 'string' ? firstDifference(d.was, d.now) : 0;
    return `${what}: ${d.path || 'value'}: ${shown(d.was, at)} became ${shown(d.now, at)}`;
  });
}
