import { ToolError } from '../errors.js';

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
    throw new ToolError('conflict', `${where} does not hold a JSON array, so it was left untouched; repair it in Ralph first`);
  }
  return v;
}

export const stringArray = (text: unknown): string[] => parseJsonArray(text).filter((x): x is string => typeof x === 'string');
/** Task ids; integer strings ("8") written by other tools are read as the ids they name. */
export const numberArray = (text: unknown): number[] =>
  parseJsonArray(text)
    .map((x) => (typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x))
    .filter((x): x is number => typeof x === 'number' && Number.isInteger(x));

export const toJson = (v: unknown): string => JSON.stringify(v);
