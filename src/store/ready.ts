/**
 * Which pending task a claim takes, and how many it could have taken, on either generation.
 *
 * The pick walks pending tasks in claim order (priority rank, then id) over an index of ours on exactly
 * that order (ralph_mcp_tasks_ready / ralph_mcp_task_facets_ready) and stops at the first ready one;
 * the count stops at READY_COUNT_MAX. Both were one window query that checked every pending task's
 * dependencies and sorted them: ~60 ms per claim at 100,000 tasks, while a shared server answers nothing else.
 */

/** Must read exactly as the indexes' expression (schema/ralph-mcp-*.sql) for SQLite to use them. */
export const priorityRank = (column: string): string =>
  `(CASE ${column} WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;

/** `ready_remaining` counts up to this many (a pool of agents needs "plenty", not the exact figure). */
export const READY_COUNT_MAX = 1000;

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
