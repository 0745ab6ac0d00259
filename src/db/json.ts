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

export const stringArray = (text: unknown): string[] => parseJsonArray(text).filter((x): x is string => typeof x === 'string');
export const numberArray = (text: unknown): number[] =>
  parseJsonArray(text).filter((x): x is number => typeof x === 'number' && Number.isInteger(x));

export const toJson = (v: unknown): string => JSON.stringify(v);
