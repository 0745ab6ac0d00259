import { ToolError } from '../domain/errors.js';
import { REQUEST_BOUNDS } from '../domain/limits.js';

/**
 * Ralph stores list-valued columns as JSON arrays in TEXT. Rows written by older Ralph versions or by
 * hand may hold NULL, '' or junk there; reading must never crash a session over that.
 */
export function parseJsonArray<T = unknown>(text: unknown): T[] {
  if (typeof text !== 'string' || text === '') return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}

export function parseJsonObject(text: unknown): Record<string, unknown> | null {
  if (typeof text !== 'string' || text === '') return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * For read-modify-write: a column we are about to rewrite must hold a JSON array (or nothing). If it
 * holds anything else, rewriting it would silently drop what is there, so we refuse instead.
 */
export function requireJsonArray(text: unknown, where: string): unknown[] {
  if (text === null || text === undefined || text === '') return [];
  let v: unknown;
  try {
    v = typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    v = undefined;
  }
  if (!Array.isArray(v)) {
    throw new ToolError(
      'conflict',
      `${where} does not hold a JSON array, so it was left untouched; repair it in Ralph first`,
    );
  }
  return v;
}

export const stringArray = (text: unknown): string[] =>
  parseJsonArray(text).filter((x): x is string => typeof x === 'string');
/** Task ids; integer strings ("8") written by other tools are read as the ids they name. */
export const numberArray = (text: unknown): number[] =>
  parseJsonArray(text)
    .map((x) => (typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x))
    .filter((x): x is number => typeof x === 'number' && Number.isInteger(x));

export const toJson = (v: unknown): string => JSON.stringify(v);

/**
 * How many items of one stored list a read returns: Ralph (or anyone with SQL) may store lists of any
 * length, so a read shows the first LIST_READ_MAX and says that it cut (Task.truncated_lists).
 */
export const LIST_READ_MAX = REQUEST_BOUNDS.storedListItems;

/** Above this many characters a JSON list is scanned item by item, only as far as needed. */
const SCAN_FROM = 64 * 1024;
/** One primitive array item and what follows it (a comma or the closing bracket). */
const ITEM = /\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|true|false|null)\s*(,|\])/y;

/**
 * The first `max` items of a JSON array in text, and whether there were more. A long array of plain
 * values (numbers, strings) is read only as far as needed; anything else is parsed whole, as
 * parseJsonArray would (unreadable reads as empty).
 */
export function parseJsonArrayHead(text: unknown, max: number = LIST_READ_MAX): { items: unknown[]; more: boolean } {
  if (typeof text === 'string' && text.length > SCAN_FROM) {
    const open = /^\s*\[/.exec(text);
    if (open) {
      const items: unknown[] = [];
      ITEM.lastIndex = open[0].length;
      for (let m = ITEM.exec(text); m; m = ITEM.exec(text)) {
        if (items.length === max) return { items, more: true };
        items.push(JSON.parse(m[1]!));
        if (m[2] === ']') return { items, more: false };
      }
    }
  }
  const all = parseJsonArray(text);
  return { items: all.slice(0, max), more: all.length > max };
}

/**
 * Task ids as numberArray reads them, from a list of items already parsed. One loop, not map then filter:
 * map's output is a different kind of array by what the list holds (Db.all says why that matters).
 */
export function numbersOf(items: unknown[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    const v = typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x;
    if (typeof v === 'number' && Number.isInteger(v)) out.push(v);
  }
  return out;
}

/** Whether a stored dependency item names task `id`, read as numbersOf reads it. */
export const namesTask =
  (id: number) =>
  (item: unknown): boolean =>
    numbersOf([item])[0] === id;
