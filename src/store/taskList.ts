import { priorityRank } from './ready.js';

/**
 * list_tasks' filters and sorts, the parts both generations share: the "last changed" day a task sorts
 * and filters by, the page positions of each sort, and lists of bound values. Each generation's store
 * supplies its column expressions (and the readiness condition of its claim, store/ready.ts).
 */

export const TASK_SORTS = ['id', 'priority', 'updated'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/** A page start: the last row of the previous page, in the sort's terms (`rank`/`day` as changedDay/priorityRank read). */
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
 * `updated_since` as a range of changedDay (what an index on it serves) and the exact test. The range
 * only repeats the test: a stored time at or after @since_time starts with a day at or after @since_day.
 */
export const changedSinceIndexed = (c: ListColumns): string => `${changedDay(c)} >= @since_day AND ${changedSince(c)}`;

/** `priority IN (…)` as ranks: the same rows (each of the four priorities has its own rank), over an index on the rank. */
export function priorityIn(column: string, values: readonly string[]): { clause: string; params: Record<string, number> } {
  const names = values.map((_, i) => `pr${i}`);
  return { clause: `${priorityRank(column)} IN (${names.map((n) => `@${n}`).join(', ')})`, params: Object.fromEntries(values.map((v, i) => [names[i], rankOf(v)])) };
}

/** ORDER BY of each sort: id; claim order (priority rank, then id); last changed day, newest first, then id. */
export function orderSql(sort: TaskSort, c: ListColumns): string {
  if (sort === 'priority') return `${priorityRank(c.priority)}, ${c.id}`;
  if (sort === 'updated') return `${changedDay(c)} DESC, ${c.id}`;
  return c.id;
}

/** The rows after a page's last row, in the same order as orderSql (parameters @after, @after_rank, @after_day). */
export function afterSql(sort: TaskSort, c: ListColumns): string {
  if (sort === 'priority') return `(${priorityRank(c.priority)} > @after_rank OR (${priorityRank(c.priority)} = @after_rank AND ${c.id} > @after))`;
  if (sort === 'updated') return `(${changedDay(c)} < @after_day OR (${changedDay(c)} = @after_day AND ${c.id} > @after))`;
  return `${c.id} > @after`;
}

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
export function inList(column: string, prefix: 'st' | 'pr', values: readonly string[]): { clause: string; params: Record<string, string> } {
  const names = values.map((_, i) => `${prefix}${i}`);
  return { clause: `${column} IN (${names.map((n) => `@${n}`).join(', ')})`, params: Object.fromEntries(values.map((v, i) => [names[i], v])) };
}

/** The rank priorityRank gives a stored priority (the cursor of the priority sort). */
export const rankOf = (priority: string | null): number => ({ critical: 0, high: 1, medium: 2, low: 3 })[priority ?? ''] ?? 4;
