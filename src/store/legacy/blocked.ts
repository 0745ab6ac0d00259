import type { Db, Row } from '../../db/database.js';
import {
  BLOCKED_BOUNDS,
  blockedCountSql,
  blockedFromRow,
  blockedIdsSql,
  blockedPageSql,
  blockerOfSignalJson,
  head,
  leadDaysSql,
  leadTime,
  legacyBlocker,
  type BlockedDialect,
  type BlockedGroup,
} from '../blocked.js';
import type { Blocker } from '../records.js';
import type { BlockedReads } from '../store.js';
import { hasSignalsTable } from './signals.js';
import { DEP_ITEMS, NAMES_TASK, READY_WHERE } from './tasks.js';

/**
 * The blocked view and the lead time on the legacy generation (store/blocked.ts): questions and
 * `blocked` signals are rows of ours (ralph_mcp_task_signals, made on the first write: before it, no
 * task has any), dependencies the JSON lists, blockers blocked_by and report_blocker's comment.
 */

/** How many characters of blocked_by and of report_blocker's comment are read (their input limit is 2,000). */
const BLOCKER_READ = 4100;

const dialect = (signals: boolean): BlockedDialect => ({
  tasks: 'tasks t',
  signals: signals ? 'ralph_mcp_task_signals' : null,
  feature: 't.feature = @feature',
  ready: READY_WHERE,
  // In list order without ORDER BY: json_each yields the items in order and, as a LEFT JOIN's left side,
  // stays the outer loop, so the caller's LIMIT stops the walk early. Sorting by d.key read all 300,000
  // items of a hand-edited list (160 ms at 100,000 tasks, with every other session waiting).
  unfinished: `SELECT CAST(d.value AS INTEGER) AS id, coalesce(dep.status, 'missing') AS status
    FROM ${DEP_ITEMS}
    LEFT JOIN tasks dep ON dep.id = CAST(d.value AS INTEGER)
    WHERE ${NAMES_TASK} AND dep.status IS NOT 'done'`,
  columns: `${head('t.title', BLOCKED_BOUNDS.title)} AS title, t.priority, t.feature, t.discipline,
    ${head('t.blocked_by', BLOCKER_READ)} AS blocked_by,
    (SELECT ${head('c.body', BLOCKER_READ + 100)} FROM task_comments c WHERE c.task_id = t.id AND c.body LIKE 'Blocked: %'
      ORDER BY c.id DESC LIMIT 1) AS blocked_comment`,
  from: 'tasks t',
});

/** Every statement, with and without our signals table, with and without a feature. */
function statements(signals: boolean) {
  const d = dialect(signals);
  const both = (f: (feature: boolean) => string) => [f(false), f(true)] as const;
  return {
    ids: {
      held: both((f) => blockedIdsSql(d, 'held', f)),
      waiting: both((f) => blockedIdsSql(d, 'waiting', f)),
    },
    count: {
      held: both((f) => blockedCountSql(d, 'held', f)),
      waiting: both((f) => blockedCountSql(d, 'waiting', f)),
    },
    page: blockedPageSql(d),
  };
}
const SQL = { plain: statements(false), withSignals: statements(true) };
const LEAD = `SELECT ${leadDaysSql('created', 'completed')} AS d FROM tasks WHERE status = 'done' ORDER BY id DESC LIMIT ${BLOCKED_BOUNDS.leadTasks}`;

/**
 * What holds a row: the `blocked` signal of a session that ended on it (in progress), else blocked_by
 * (report_blocker, update_task), else the newest `blocked` signal.
 */
function rowBlocker(r: Row): Blocker {
  const signal = blockerOfSignalJson(r.blocked_signal);
  if (r.status === 'in_progress' && r.closing === 'blocked' && signal) return signal;
  const by = typeof r.blocked_by === 'string' && r.blocked_by !== '' ? r.blocked_by : null;
  if (by !== null) return legacyBlocker(by, typeof r.blocked_comment === 'string' ? r.blocked_comment : undefined);
  return signal ?? { detail: null, upstream: null };
}

export function legacyBlocked(db: Db): BlockedReads {
  const sql = () => (hasSignalsTable(db) ? SQL.withSignals : SQL.plain);
  const idsOf = (group: BlockedGroup, feature: string | undefined, afterId: number, limit: number): number[] =>
    db
      .all<{ id: number }>(sql().ids[group][feature !== undefined ? 1 : 0], {
        after: afterId,
        limit,
        ...(feature !== undefined ? { feature } : {}),
      })
      .map((r) => r.id);
  return {
    blockedTasks(group, feature, afterId, limit) {
      const ids = idsOf(group, feature, afterId, limit);
      if (ids.length === 0) return [];
      return db.all(sql().page, { ids: JSON.stringify(ids) }).map((r) => blockedFromRow(r, rowBlocker(r)));
    },
    countBlocked(group, feature, max) {
      const params = { max: max + 1, ...(feature !== undefined ? { feature } : {}) };
      return db.get<{ n: number }>(sql().count[group][feature !== undefined ? 1 : 0], params)!.n;
    },
    leadTime() {
      return leadTime(db.all<{ d: number | null }>(LEAD).map((r) => r.d));
    },
  };
}
