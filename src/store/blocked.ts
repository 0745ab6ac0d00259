import type { Row } from '../db/database.js';
import { blockedComment, upstreamTaskIn } from '../domain/dependencies.js';
import { parseJsonArray } from './json.js';
import type { BlockedTask, Blocker, LeadTime } from './records.js';

/**
 * The blocked view (TaskStore.blockedTasks) and the lead time, the parts both generations share. Which
 * tasks a view holds (docs/blocked.md):
 * - `held`: someone has to act. Status blocked; or an open blocking question (an `ask` with blocking set
 *   and no answer) on a task that is not done or skipped; or in progress while its session's last word
 *   (the newest of its done, partial, stuck and blocked signals) is `blocked`.
 * - `waiting`: pending, not held, and not ready (store/ready.ts): an unfinished dependency is in the way.
 * Every pending task is exactly one of ready, waiting or held.
 */
export type BlockedGroup = 'held' | 'waiting';

/** What one row of the view shows at most: every list and text is cut (a hostile project stays bounded). */
export const BLOCKED_BOUNDS = {
  /** Unfinished dependencies shown per task (the rest counted). */
  waitsOn: 5,
  /** Open blocking questions shown per task (the rest counted). */
  questions: 3,
  /** Characters of a question, a blocker's reason and a title. */
  text: 300,
  title: 200,
  /** Counts stop here (a count of this many means "at least"). */
  countMax: 1000,
  /** The lead time's median is over at most this many done tasks, the newest by id. */
  leadTasks: 1000,
} as const;

/** The verbs that end a session's work on a task: the newest of them says where the session left it. */
export const CLOSING_VERBS = "('done', 'partial', 'stuck', 'blocked')";

/** A text cut to max characters, marked with … when cut (SQL reads max + 1 so that the cut shows). */
export function cut(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return null;
  return v.length > max ? `${v.slice(0, max)}…` : v;
}

/** SQL's `substr(x, 1, max + 1)`: a long stored text never reaches JS whole. */
export const head = (column: string, max: number): string => `substr(${column}, 1, ${max + 1})`;

/** How many of a list the row does not show: `n` counted (stops at countMax), `shown` listed. */
const more = (n: unknown, shown: number): number =>
  Math.max(0, Math.min(Number(n) || 0, BLOCKED_BOUNDS.countMax) - shown);

/**
 * A page row as both generations select it: the task's columns, `waits` / `asks` as JSON arrays of
 * [id, status] / [id, question] and their counts, `closing` (newest closing verb), and the blocker.
 */
export function blockedFromRow(r: Row, blocker: Blocker): BlockedTask {
  const waits = parseJsonArray<[number, string]>(r.waits);
  const asks = parseJsonArray<[number, string]>(r.asks);
  const status = String(r.status);
  // A recorded reason counts while it holds the task: status blocked, or an in-progress task whose
  // session ended on `blocked`. One left over from a block that is over would mislead a planner.
  const standing = status === 'blocked' || (status === 'in_progress' && r.closing === 'blocked');
  const out: BlockedTask = {
    id: Number(r.id),
    title: cut(r.title, BLOCKED_BOUNDS.title) ?? '',
    status,
    priority: typeof r.priority === 'string' ? r.priority : null,
    feature: String(r.feature),
    discipline: String(r.discipline),
  };
  // Only what holds the task is listed: an answer stays short when a task is held by one thing.
  const reason = standing ? cut(blocker.detail, BLOCKED_BOUNDS.text) : null;
  if (reason !== null) out.reason = reason;
  if (standing && blocker.upstream !== null) out.upstream = blocker.upstream;
  if (waits.length > 0) out.waits_on = waits.map(([id, s]) => ({ id: Number(id), status: String(s) }));
  const moreWaits = more(r.waits_n, waits.length);
  if (moreWaits > 0) out.waits_on_more = moreWaits;
  if (asks.length > 0)
    out.questions = asks.map(([id, q]) => ({ id: Number(id), question: cut(q, BLOCKED_BOUNDS.text) ?? '' }));
  const moreAsks = more(r.asks_n, asks.length);
  if (moreAsks > 0) out.questions_more = moreAsks;
  return out;
}

/**
 * The median of lead times in days (completed day − created day) of the done tasks read; a task
 * without both days readable, or completed before it was created, is counted in `skipped`.
 */
export function leadTime(days: readonly (number | null)[]): LeadTime {
  const ok = days.filter((d): d is number => d !== null && Number.isFinite(d) && d >= 0).sort((a, b) => a - b);
  const mid = ok.length >> 1;
  const median = ok.length === 0 ? null : ok.length % 2 === 1 ? ok[mid]! : (ok[mid - 1]! + ok[mid]!) / 2;
  return { median_days: median, tasks: ok.length, skipped: days.length - ok.length };
}

const DAY_GLOB = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'";

/**
 * Days from created to completed, by their day parts (both generations store days; a time, where a
 * writer left one, is cut to its day, so every figure is whole days); NULL when either is not a date.
 */
export const leadDaysSql = (created: string, completed: string): string =>
  `(CASE WHEN ${created} GLOB ${DAY_GLOB} AND ${completed} GLOB ${DAY_GLOB}
     THEN julianday(substr(${completed}, 1, 10)) - julianday(substr(${created}, 1, 10)) END)`;

/** What a generation plugs into the view's statements (every fragment fixed text of ours; values bound). */
export interface BlockedDialect {
  /** The task rows as `t` (t.id, t.status): a table, for the group's arms. */
  tasks: string;
  /** Where `ask` and `blocked` signals live (legacy: our table, null before it exists). */
  signals: string | null;
  /** t is of feature @feature. */
  feature: string;
  /** t is ready (store/ready.ts): the claim's own condition. */
  ready: string;
  /** t's unfinished dependencies as rows (id, status), in list order ('missing' for an id no task has). */
  unfinished: string;
  /** The page's own columns: title (cut: head), priority, feature, discipline, and the blocker's. */
  columns: string;
  /** FROM of the page (t with the joins `columns` reads). */
  from: string;
}

const LIMIT = 'LIMIT CAST(@limit AS INTEGER)';

/** t has an open blocking question (no answer, or an empty one). */
const openAsk = (signals: string, id: string) =>
  `EXISTS (SELECT 1 FROM ${signals} q WHERE q.task_id = ${id} AND q.verb = 'ask' AND q.blocking = 1 AND coalesce(q.answer, '') = '')`;

/** The newest closing verb of t's signals (NULL when none). */
export const closingSql = (signals: string, id: string) =>
  `(SELECT c.verb FROM ${signals} c WHERE c.task_id = ${id} AND c.verb IN ${CLOSING_VERBS} ORDER BY c.id DESC LIMIT 1)`;

/**
 * The held group as up to three arms, each walking its own index in id order (status blocked; open
 * blocking questions; in progress with a session that ended on `blocked`): a page reads at most
 * `limit` rows of each, not every task.
 */
function heldArms(d: BlockedDialect, feature: boolean, page: boolean): string[] {
  const f = feature ? `AND ${d.feature}` : '';
  const after = page ? 'AND t.id > @after' : '';
  const tail = (id: string) => (page ? `ORDER BY ${id} ${LIMIT}` : '');
  const arms = [`SELECT t.id FROM ${d.tasks} WHERE t.status = 'blocked' ${after} ${f} ${tail('t.id')}`];
  if (d.signals !== null) {
    arms.push(
      `SELECT DISTINCT q.task_id AS id FROM ${d.signals} q JOIN ${d.tasks} ON t.id = q.task_id
       WHERE q.verb = 'ask' AND q.blocking = 1 AND coalesce(q.answer, '') = '' AND t.status NOT IN ('done', 'skipped')
       ${page ? 'AND q.task_id > @after' : ''} ${f} ${tail('q.task_id')}`,
      // The probe for any `blocked` signal is one index seek (Ralph indexes task_id, verb): most tasks in
      // progress have none, and are passed without sorting their signals (CASE: SQLite would run the
      // costlier subquery first).
      `SELECT t.id FROM ${d.tasks} WHERE t.status = 'in_progress' ${after} ${f}
       AND (CASE WHEN EXISTS (SELECT 1 FROM ${d.signals} b WHERE b.task_id = t.id AND b.verb = 'blocked')
         THEN ${closingSql(d.signals, 't.id')} END) = 'blocked' ${tail('t.id')}`,
    );
  }
  return arms.map((a) => `SELECT id FROM (${a})`);
}

/** Pending, not ready, not held: waiting on an unfinished dependency. */
function waitingSql(d: BlockedDialect, feature: boolean, page: boolean): string {
  return `SELECT t.id FROM ${d.tasks} WHERE t.status = 'pending' ${page ? 'AND t.id > @after' : ''}
    ${feature ? `AND ${d.feature}` : ''} AND NOT (${d.ready})
    ${d.signals !== null ? `AND NOT ${openAsk(d.signals, 't.id')}` : ''}
    ${page ? `ORDER BY t.id ${LIMIT}` : ''}`;
}

/** The ids of one page of a group, by id. */
export function blockedIdsSql(d: BlockedDialect, group: BlockedGroup, feature: boolean): string {
  if (group === 'waiting') return waitingSql(d, feature, true);
  return `SELECT id FROM (${heldArms(d, feature, true).join(' UNION ')}) ORDER BY id ${LIMIT}`;
}

/** How many tasks a group holds, up to @max (bound: the cap + 1). */
export function blockedCountSql(d: BlockedDialect, group: BlockedGroup, feature: boolean): string {
  const ids = group === 'waiting' ? waitingSql(d, feature, false) : heldArms(d, feature, false).join(' UNION ');
  return `SELECT count(*) AS n FROM (SELECT 1 FROM (${ids}) LIMIT CAST(@max AS INTEGER))`;
}

/** The page's rows for the ids in @ids (a JSON array), with what holds each, in one statement. */
export function blockedPageSql(d: BlockedDialect): string {
  const B = BLOCKED_BOUNDS;
  const asks = (what: string, limit: number) =>
    d.signals === null
      ? 'NULL'
      : `(SELECT ${what} FROM (SELECT q.id, ${head('q.question', B.text)} AS question FROM ${d.signals} q
          WHERE q.task_id = t.id AND q.verb = 'ask' AND q.blocking = 1 AND coalesce(q.answer, '') = '' ORDER BY q.id LIMIT ${limit}))`;
  return `SELECT t.id, t.status, ${d.columns},
      (SELECT json_group_array(json_array(id, status)) FROM (${d.unfinished} LIMIT ${B.waitsOn})) AS waits,
      (SELECT count(*) FROM (${d.unfinished} LIMIT ${B.countMax})) AS waits_n,
      ${asks('json_group_array(json_array(id, question))', B.questions)} AS asks,
      ${asks('count(*)', B.countMax)} AS asks_n,
      ${d.signals === null ? 'NULL' : closingSql(d.signals, 't.id')} AS closing,
      ${
        d.signals === null
          ? 'NULL'
          : `(SELECT json_array(${head('b."on"', B.text)}, b.kind, ${head('b.detail', B.text)}) FROM ${d.signals} b
              WHERE b.task_id = t.id AND b.verb = 'blocked' ORDER BY b.id DESC LIMIT 1)`
      } AS blocked_signal
    FROM ${d.from} WHERE t.id IN (SELECT value FROM json_each(@ids)) ORDER BY t.id`;
}

/** A `blocked` signal as a blocker: its `on` (and detail), and the task `on` names when its kind is upstream_task. */
export function signalBlocker(on: string, kind: string | null, detail: string | null): Blocker {
  return {
    detail: detail !== null && detail !== '' ? `${on}: ${detail}` : on,
    upstream: kind === 'upstream_task' ? upstreamTaskIn(on) : null,
  };
}

/** blocked_signal of a page row ([on, kind, detail] or NULL) as a blocker, or undefined. */
export function blockerOfSignalJson(v: unknown): Blocker | undefined {
  const [on, kind, detail] = parseJsonArray<string | null>(v);
  return typeof on === 'string' ? signalBlocker(on, kind ?? null, detail ?? null) : undefined;
}

/**
 * A legacy task's blocker: blocked_by holds report_blocker's reason alone, and its comment (`last`, the
 * newest "Blocked: …" one) names the upstream task. A blocked_by someone else wrote (or changed since)
 * is read for a task reference.
 */
export function legacyBlocker(detail: string | null, last: string | undefined): Blocker {
  if (detail !== null && last !== undefined) {
    const said = blockedComment(detail, null);
    const mark = /^ \(blocked on task #(\d+)\)$/.exec(last.startsWith(said) ? last.slice(said.length) : '');
    if (mark) return { detail, upstream: Number(mark[1]) };
  }
  return { detail, upstream: upstreamTaskIn(detail) };
}
