import type { Db } from '../db/database.js';

/**
 * list_tasks' totals, which an agent paging a list asks for on every page, remembered while no other
 * connection has committed (data_version) and this one changed no row (total_changes()). Nothing is kept
 * inside a write: it may still roll back, and a rollback leaves total_changes() advanced. A reading tool's
 * snapshot (Db.read) is no write: its counts are kept.
 */
const ENTRIES = 64;

interface Counts {
  state: string;
  values: Map<string, number>;
}

// Per connection, not per Db: a reopened connection starts its data_version and total_changes() afresh.
const caches = new WeakMap<object, Counts>();
const STATE_SQL = 'SELECT total_changes() AS c, (SELECT data_version FROM pragma_data_version) AS v';

export function cachedCount(db: Db, sql: string, params: Record<string, unknown>, count: () => number): number {
  if (db.writing) return count();
  const s = db.get<{ c: number; v: number }>(STATE_SQL)!;
  const state = `${s.v}:${s.c}`;
  let cache = caches.get(db.raw);
  if (!cache || cache.state !== state) {
    cache = { state, values: new Map() };
    caches.set(db.raw, cache);
  }
  const key = `${sql}\n${JSON.stringify(params)}`;
  const hit = cache.values.get(key);
  if (hit !== undefined) return hit;
  const n = count();
  if (cache.values.size >= ENTRIES) cache.values.delete(cache.values.keys().next().value!);
  cache.values.set(key, n);
  return n;
}
