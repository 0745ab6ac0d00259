import { priorityRank } from './ready.js';

/**
 * list_tasks' filters and sorts, the parts both generations share: the "last changed" day a task sorts
 * and filters by, the page positions of each sort, and lists of bound values. Each generation's store
 * supplies its column expressions (and the readiness condition of its claim, store/ready.ts).
 */

export const TASK_SORTS = ['id', 'priority', 'updated'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/**
 * A page start: the last row of the previous page, in the sort's terms (`rank`/`day` as changedDay/priorityRank read).
 */
export interface TaskListAfter {
  id: number;
  rank?: number;
  day?: string;
}

/** The statement parts a generation plugs in. */
export interface ListColumns {
  id: string;
  priority: string;
  updated: string;
  created: string;
}

const DAY_GLOB = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'";

/**
 * When a task last changed, as the day get_task shows: `updated`, or `created` for a task never updated
 * (Ralph writes 'YYYY-MM-DD', its triggers 'YYYY-MM-DD HH:MM:SS'); '' when neither reads as a date.
 */
export const changedDay = (c: ListColumns): string =>
  `(CASE WHEN coalesce(${c.updated}, ${c.created}) GLOB ${DAY_GLOB} THEN substr(coalesce(${c.updated}, ${c.created}), 1, 10) ELSE '' END)`;

/**
 * Changed at or after @since_time ('YYYY-MM-DD HH:MM:SS', UTC): a stored time compares to the second;
 * a stored day (no time) counts when it is @since_day or later (it may be any time of that day).
 */
export const changedSince = (c: ListColumns): string => {
  const v = `coalesce(${c.updated}, ${c.created})`;
  return `(CASE WHEN ${v} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][ T][0-9][0-9]:[0-9][0-9]:[0-9][0-9]*' THEN replace(substr(${v}, 1, 19), 'T', ' ') >= @since_time
    WHEN ${v} GLOB ${DAY_GLOB} THEN substr(${v}, 1, 10) >= @since_day ELSE 0 END)`;
};

/**
 * `updated_since` as a range of changedDay (what an index on it serves), with the exact test only on the
 * first day: every task of a later day passes it, so counting those needs no task row.
 */
export const changedSinceIndexed = (c: ListColumns): string =>
  `(${changedDay(c)} > @since_day OR (${changedDay(c)} = @since_day AND ${changedSince(c)}))`;

/**
 * `priority IN (…)` as ranks: the same rows (each of the four priorities has its own rank), over an index on the rank.
 */
export function priorityIn(
  column: string,
  values: readonly string[],
): { clause: string; params: Record<string, number> } {
  const names = values.map((_, i) => `pr${i}`);
  return {
    clause: `${priorityRank(column)} IN (${names.map((n) => `@${n}`).join(', ')})`,
    params: Object.fromEntries(values.map((v, i) => [names[i], rankOf(v)])),
  };
}

/**
 * ORDER BY of each sort: id; claim order (priority rank, then id); last changed day, newest first, then id.
 * `sortRows`: the filters name few rows, so the unary plus keeps SQLite from walking the whole order to find them.
 */
export function orderSql(sort: TaskSort, c: ListColumns, sortRows = false): string {
  const p = sortRows ? '+' : '';
  if (sort === 'priority') return `${p}${priorityRank(c.priority)}, ${p}${c.id}`;
  if (sort === 'updated') return `${p}${changedDay(c)} DESC, ${p}${c.id}`;
  return `${p}${c.id}`;
}

/**
 * The rows after a page's last row, in the same order as orderSql (parameters @after, @after_rank,
 * @after_day; on a first page, positions before every row): a range SQLite walks from, page after page.
 */
export function afterSql(sort: TaskSort, c: ListColumns, sortRows = false): string[] {
  const p = sortRows ? '+' : '';
  const rank = `${p}${priorityRank(c.priority)}`;
  const day = `${p}${changedDay(c)}`;
  const id = `${p}${c.id}`;
  if (sort === 'priority') return [`(${rank} > @after_rank OR (${rank} = @after_rank AND ${id} > @after))`];
  if (sort === 'updated') return [`(${day} < @after_day OR (${day} = @after_day AND ${id} > @after))`];
  return [`${id} > @after`];
}

/** Whether a query's filters name few enough rows to sort them (orderSql's sortRows). */
export const fewRows = (q: { feature?: string | undefined; discipline?: string | undefined }): boolean =>
  q.feature !== undefined && q.discipline !== undefined;

export function afterParams(sort: TaskSort, after: TaskListAfter | null): Record<string, string | number> {
  if (after === null) {
    // Before the first row of each order.
    if (sort === 'priority') return { after: 0, after_rank: -1 };
    if (sort === 'updated') return { after: 0, after_day: '\uffff' };
    return { after: 0 };
  }
  if (sort === 'priority') return { after: after.id, after_rank: after.rank ?? 0 };
  if (sort === 'updated') return { after: after.id, after_day: after.day ?? '' };
  return { after: after.id };
}

/** `column IN (@prefix0, @prefix1, …)` for a list of values (names are ours: the prefix and an index). */
export function inList(
  column: string,
  prefix: 'st' | 'pr',
  values: readonly string[],
): { clause: string; params: Record<string, string> } {
  const names = values.map((_, i) => `${prefix}${i}`);
  return {
    clause: `${column} IN (${names.map((n) => `@${n}`).join(', ')})`,
    params: Object.fromEntries(values.map((v, i) => [names[i], v])),
  };
}

/** The rank priorityRank gives a stored priority (the cursor of the priority sort). */
export const rankOf = (priority: string | null): number =>
  ({ critical: 0, high: 1, medium: 2, low: 3 })[priority ?? ''] ?? 4;

/** list_tasks' holder filter: held by one session, by any, or by none (taskList.ts holderSql). */
export type HolderFilter = { session: string } | 'any' | 'none';

/**
 * A task is held while it is in_progress under a claim row (ralph_mcp_claims; the rule get_task's
 * held_by shows, a lease that ran out included). Before our tables exist nothing is held.
 */
export function holderSql(
  h: HolderFilter,
  c: { id: string; status: string },
  claimsExist: boolean,
): { clause: string; params: Record<string, string> } {
  if (!claimsExist) return { clause: h === 'none' ? '1' : '0', params: {} };
  if (h === 'any' || h === 'none') {
    const held = `(${c.status} = 'in_progress' AND ${c.id} IN (SELECT task_id FROM ralph_mcp_claims))`;
    return { clause: h === 'any' ? held : `NOT ${held}`, params: {} };
  }
  return {
    clause: `(${c.status} = 'in_progress' AND ${c.id} IN (SELECT task_id FROM ralph_mcp_claims WHERE session_id = @holder))`,
    params: { holder: h.session },
  };
}

/** COUNT(*) of a WHERE; `capped`: counting stops after @count_max rows (bound by the caller: the cap + 1). */
export const countSql = (from: string, where: string, capped: boolean): string =>
  capped
    ? `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT CAST(@count_max AS INTEGER))`
    : `SELECT count(*) AS n FROM ${from} WHERE ${where}`;

/** The parameter countSql's cap reads: one row more than `max`, so a count above it shows. */
export const countParams = (max: number | undefined): Record<string, number> =>
  max === undefined ? {} : { count_max: max + 1 };

/** Rows in the order of `ids` (the order a caller chose them in); an id with no row is left out. */
export function inIdOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
