import type { Db } from '../../db/database.js';
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
  type BlockedDialect,
} from '../blocked.js';
import type { BlockedReads } from '../store.js';
import { DETAIL_JOINS } from './sql.js';
import { readyWhere } from './tasks.js';

/**
 * The blocked view and the lead time on the normalized generation (store/blocked.ts): signals are
 * Ralph's task_signals (indexed by task and verb), dependencies its task_dependencies rows.
 */
const DIALECT: BlockedDialect = {
  tasks: 'runtime_tasks t',
  signals: 'task_signals',
  feature: 't.subsystem_id = (SELECT id FROM subsystems WHERE name = @feature)',
  ready: readyWhere('t.status', 't.id'),
  unfinished: `SELECT dd.depends_on_task_id AS id, coalesce(dep.status, 'missing') AS status FROM task_dependencies dd
    LEFT JOIN runtime_tasks dep ON dep.id = dd.depends_on_task_id
    WHERE dd.task_id = t.id AND dep.status IS NOT 'done' ORDER BY dd.id`,
  columns: `${head('d.title', BLOCKED_BOUNDS.title)} AS title, d.priority, s.name AS feature, di.name AS discipline`,
  from: `runtime_tasks t ${DETAIL_JOINS}`,
};

const SQL = {
  ids: {
    held: [blockedIdsSql(DIALECT, 'held', false), blockedIdsSql(DIALECT, 'held', true)],
    waiting: [blockedIdsSql(DIALECT, 'waiting', false), blockedIdsSql(DIALECT, 'waiting', true)],
  },
  count: {
    held: [blockedCountSql(DIALECT, 'held', false), blockedCountSql(DIALECT, 'held', true)],
    waiting: [blockedCountSql(DIALECT, 'waiting', false), blockedCountSql(DIALECT, 'waiting', true)],
  },
  page: blockedPageSql(DIALECT),
  // The newest done tasks by id: the status index walked backwards, a few pages of rows.
  lead: `SELECT ${leadDaysSql('created', 'completed')} AS d FROM runtime_tasks WHERE status = 'done' ORDER BY id DESC LIMIT ${BLOCKED_BOUNDS.leadTasks}`,
} as const;

export function normalizedBlocked(db: Db): BlockedReads {
  return {
    blockedTasks(group, feature, afterId, limit) {
      const f = feature !== undefined ? 1 : 0;
      const params = { after: afterId, limit, ...(feature !== undefined ? { feature } : {}) };
      const ids = db.all<{ id: number }>(SQL.ids[group][f]!, params).map((r) => r.id);
      if (ids.length === 0) return [];
      return db
        .all(SQL.page, { ids: JSON.stringify(ids) })
        .map((r) => blockedFromRow(r, blockerOfSignalJson(r.blocked_signal) ?? { detail: null, upstream: null }));
    },
    countBlocked(group, feature, max) {
      const params = { max: max + 1, ...(feature !== undefined ? { feature } : {}) };
      return db.get<{ n: number }>(SQL.count[group][feature !== undefined ? 1 : 0]!, params)!.n;
    },
    leadTime() {
      return leadTime(db.all<{ d: number | null }>(SQL.lead).map((r) => r.d));
    },
  };
}
