import type { Db } from '../../db/database.js';
import { LIST_READ_MAX } from '../json.js';
import type { TaskQuery } from '../store.js';

/**
 * Shared pieces of the normalized generation's SQL. A task is a `runtime_tasks` row (its id is the one
 * agents see) joined to its `task_details` row, its subsystem (a feature, to agents) and the details'
 * discipline; every list is a child table. Names compare case-insensitively (the columns are NOCASE).
 */

/** The joins every task read uses: a runtime task that does not join all three is invisible, as in Ralph. */
export const DETAIL_JOINS = `
  JOIN task_details d ON d.id = t.details_id
  JOIN subsystems s ON s.id = t.subsystem_id
  JOIN disciplines di ON di.id = d.discipline_id`;
export const TASK_JOINS = `FROM runtime_tasks t ${DETAIL_JOINS}`;

/**
 * A child list as a JSON array, in the order Ralph reads it: at most LIST_READ_MAX + 1 rows (one more
 * than a read returns, so that the reader sees the list was longer and says so).
 */
const list = (column: string, table: string, order: string) =>
  `(SELECT json_group_array(${column}) FROM (SELECT ${column} FROM ${table} WHERE task_id = t.id ORDER BY ${order} LIMIT ${LIST_READ_MAX + 1}))`;

export const DEPENDS_ON = list('depends_on_task_id', 'task_dependencies', 'id');

/**
 * Every field of a task (records.Task) in one statement: one round trip however many lists it has. Our
 * task-row mirror (taskRows.ts) stores them under these names, in this order.
 */
export const TASK_COLUMNS = `
  t.id, s.name AS feature, di.name AS discipline, d.title, d.description, t.status, d.priority,
  ${list('tag', 'task_tags', 'id')} AS tags,
  ${DEPENDS_ON} AS depends_on,
  (SELECT coalesce(b.detail, b."on") FROM task_signals b WHERE b.task_id = t.id AND b.verb = 'blocked' ORDER BY b.id DESC LIMIT 1) AS blocked_by,
  t.created, t.updated, t.completed,
  ${list('criterion', 'task_acceptance_criteria', 'criterion_order, id')} AS acceptance_criteria,
  ${list('file_path', 'task_context_files', 'id')} AS context_files,
  ${list('artifact_path', 'task_output_artifacts', 'id')} AS output_artifacts,
  d.hints, d.estimated_turns, t.provenance, d.pseudocode, t.enriched_at,
  t.template_id,
  (SELECT td.title FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = t.template_id) AS template_title`;

/**
 * The optional filters as fixed fragments (keys are ours, values always bound). Feature and
 * discipline go through their ids, so the runtime_tasks indexes serve them.
 */
const FILTERS = {
  status: 't.status = @status',
  feature: 't.subsystem_id = (SELECT id FROM subsystems WHERE name = @feature)',
  discipline: 'd.discipline_id = (SELECT id FROM disciplines WHERE name = @discipline)',
} as const;
const FILTER_KEYS = ['status', 'feature', 'discipline'] as const;

export function filterSql(q: TaskQuery): { params: Record<string, string>; clauses: string[] } {
  const keys = FILTER_KEYS.filter((k) => q[k] !== undefined);
  return { params: Object.fromEntries(keys.map((k) => [k, q[k]!])), clauses: keys.map((k) => FILTERS[k]) };
}

export const subsystemId = (db: Db, name: string): number =>
  db.get<{ id: number }>('SELECT id FROM subsystems WHERE name = ?', name)!.id;
export const disciplineId = (db: Db, name: string): number =>
  db.get<{ id: number }>('SELECT id FROM disciplines WHERE name = ?', name)!.id;
export const detailsIdOf = (db: Db, taskId: number): number =>
  db.get<{ d: number }>('SELECT details_id AS d FROM runtime_tasks WHERE id = ?', taskId)!.d;

/**
 * Whether our tables exist yet: they are made on the first write, and reads before that do without
 * them. Remembered once seen (ours are never dropped while a session runs).
 */
const seenOwnTables = new WeakSet<Db>();
export function hasOwnTables(db: Db): boolean {
  if (seenOwnTables.has(db)) return true;
  const found =
    db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_comment_meta'") !== undefined;
  if (found) seenOwnTables.add(db);
  return found;
}
