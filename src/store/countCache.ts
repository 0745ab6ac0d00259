import type { Db } from '../db/database.js';

/**
 * list_tasks' totals, remembered while the database is unchanged. Counting every task costs about 1 ms at
 * 100,000 tasks, and an agent paging through a list asks for the same total on every page. A count is
 * keyed by its statement and parameters, and valid while the database is in the same state: no other
 * connection has committed (PRAGMA data_version) and this one has changed no row (total_changes()).
 * Inside a transaction nothing is read or kept: what it changed may still be rolled back, and a
 * rollback leaves total_changes() where the changes took it.
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
  if (db.raw.inTransaction) return count();
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
