import type { Db, Row } from '../../db/database.js';
import { ralphMcpDdl, triggerNames } from '../own/ddl.js';
import { TASK_COLUMNS, TASK_JOINS, hasOwnTables } from './sql.js';

/**
 * ralph_mcp_task_rows (schema/ralph-mcp-normalized.sql): each task as GET_TASK reads it, one row instead of
 * four joined rows and a statement per list. A cache, never the truth: whoever writes, our triggers change
 * a task's status, updated and completed in place, and otherwise delete the row and queue the task; our writes fill
 * the queue's rows again before they commit; a task without a row is read from Ralph's tables. Rows are
 * taken only while every trigger is in place (a rebuild of one of Ralph's tables drops the triggers on
 * it): checked again whenever the schema changes (docs/storage.md, Task rows).
 */

const TRIGGERS = triggerNames(ralphMcpDdl('normalized'), 'ralph_mcp_rows_');
const META_KEY = 'task_rows';

/**
 * The mirror's columns after its key: TASK_COLUMNS' names, in its order (the contract test
 * ralphWrites.test.ts compares every row with the joined read).
 */
export const TASK_ROW_NAMES = `feature, discipline, title, description, status, priority, tags, depends_on, blocked_by, created, updated,
  completed, acceptance_criteria, context_files, output_artifacts, hints, estimated_turns, provenance, pseudocode,
  enriched_at, template_id, template_title`;
const FILL = `INSERT OR REPLACE INTO ralph_mcp_task_rows (task_id, ${TASK_ROW_NAMES}, template_details_id)
  SELECT ${TASK_COLUMNS}, (SELECT tt.details_id FROM task_templates tt WHERE tt.id = t.template_id) ${TASK_JOINS}`;
/** Every visible task's row (the joins leave out a task Ralph's code would not show). */
const FILL_ALL = FILL;
/** The rows of some tasks (a JSON array of ids), made again. */
const FILL_SOME = `${FILL} WHERE t.id IN (SELECT value FROM json_each(?))`;

/**
 * One task's row under GET_TASK's names, while the schema is the one the mirror was found whole in
 * (@v): after any DDL (a rebuild of Ralph's tables may have dropped our triggers) no row is taken until
 * checked again.
 */
export const TASK_ROW: MirroredRead = `SELECT task_id AS id, ${TASK_ROW_NAMES} FROM ralph_mcp_task_rows WHERE task_id = @id AND (SELECT schema_version FROM pragma_schema_version) = @v`;
export const TASK_ROW_HEAD: MirroredRead = `SELECT task_id AS id, title, status, feature, discipline FROM ralph_mcp_task_rows WHERE task_id = @id AND (SELECT schema_version FROM pragma_schema_version) = @v`;

const presentTriggers = (db: Db): number =>
  db
    .all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ralph\\_mcp\\_rows\\_%' ESCAPE '\\'",
    )
    .filter((r) => TRIGGERS.includes(r.name)).length;

/** Before our DDL runs: whether the mirror is whole (its triggers were all there all along). */
export const taskRowsIntact = (db: Db): boolean =>
  hasOwnTables(db) &&
  db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_task_rows'") !== undefined &&
  presentTriggers(db) === TRIGGERS.length &&
  db.get('SELECT 1 AS x FROM ralph_mcp_meta WHERE key = ?', META_KEY) !== undefined;

/** After our DDL ran (triggers in place), inside its transaction: every task's row, the queue empty. */
export function rebuildTaskRows(db: Db): void {
  db.run('DELETE FROM ralph_mcp_task_rows');
  db.run('DELETE FROM ralph_mcp_task_rows_stale');
  db.run(FILL_ALL);
  db.run('INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES (?, ?)', META_KEY, '1');
}

/** Per connection: the schema version the mirror was last checked in, and whether it was whole then. */
const checked = new WeakMap<object, { v: number; whole: boolean }>();

/**
 * The schema version under which rows may be read, or undefined when none may be (our tables not made
 * yet, or a trigger missing). A whole mirror is not asked again: each read compares the version itself.
 */
export function rowsVersion(db: Db): number | undefined {
  const c = checked.get(db.raw);
  return c?.whole ? c.v : recheck(db);
}

/** Checks the mirror again if the schema changed since it was last checked (one PRAGMA otherwise). */
export function recheck(db: Db): number | undefined {
  const v = db.get<{ schema_version: number }>('PRAGMA schema_version')!.schema_version;
  let c = checked.get(db.raw);
  if (c?.v !== v) {
    c = { v, whole: taskRowsIntact(db) };
    checked.set(db.raw, c);
  }
  return c.whole ? v : undefined;
}

/** A statement that reads a task's row from the mirror (@id, and @v: the schema version it was found whole in). */
export type MirroredRead = string;

/** A task's row from the mirror, or undefined (none, or the mirror not to be trusted now). */
export function mirroredRow(
  db: Db,
  sql: MirroredRead,
  params: { id: number } & Record<string, number>,
): Row | undefined {
  const v = rowsVersion(db);
  if (v === undefined) return undefined;
  const row = db.get(sql, { ...params, v });
  // No row: a queued task, or a changed schema (then the triggers are checked again).
  if (row === undefined) recheck(db);
  return row;
}

/** How many queued rows a write fills before it commits: its own tasks, and a share of any backlog. */
export const FILL_PER_WRITE = 64;

/**
 * Inside a write transaction: makes the rows of up to `max` queued tasks again (newest first) and takes
 * them off the queue. A task no longer visible gets no row. Its only failures are the disk's (full, I/O),
 * which fail the write as its commit would.
 */
export function fillQueued(db: Db, max: number = FILL_PER_WRITE): void {
  if (!hasOwnTables(db) || rowsVersion(db) === undefined) return;
  const ids = db
    .all<{ task_id: number }>(
      'SELECT task_id FROM ralph_mcp_task_rows_stale ORDER BY task_id DESC LIMIT CAST(? AS INTEGER)',
      max,
    )
    .map((r) => r.task_id);
  if (ids.length === 0) return;
  const json = JSON.stringify(ids);
  db.run(FILL_SOME, json);
  db.run('DELETE FROM ralph_mcp_task_rows_stale WHERE task_id IN (SELECT value FROM json_each(?))', json);
}
