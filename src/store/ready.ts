import { REQUEST_BOUNDS } from '../domain/limits.js';
/**
 * Which pending task a claim takes, and how many it could have taken, on either generation. The pick walks
 * an index of ours in claim order (priority rank, then id) and stops at the first ready task, so a claim
 * never checks every pending task's dependencies; the count stops at READY_COUNT_MAX.
 */

/** Must read exactly as the indexes' expression (schema/ralph-mcp-*.sql) for SQLite to use them. */
export const priorityRank = (column: string): string =>
  `(CASE ${column} WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;

/** `ready_remaining` counts up to this many (a pool of agents needs "plenty", not the exact figure). */
export const READY_COUNT_MAX = REQUEST_BOUNDS.readyCount;

/**
 * `from` names the task rows `t`-style as `alias`; `where` is every condition for a task to be ready.
 * `queue` is `pick` with LIMIT CAST(@limit AS INTEGER): next_tasks previews exactly what successive claims would take.
 */
export function readySql(
  from: string,
  alias: string,
  idColumn: string,
  where: string,
): { pick: string; queue: string; count: string } {
  const order = `SELECT ${alias}.${idColumn} AS id FROM ${from} WHERE ${where} ORDER BY ${priorityRank(`${alias}.priority`)}, ${alias}.${idColumn}`;
  return {
    pick: `${order} LIMIT 1`,
    queue: `${order} LIMIT CAST(@limit AS INTEGER)`,
    count: `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT ${READY_COUNT_MAX + 1})`,
  };
}
