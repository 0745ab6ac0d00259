import type { Db, Row } from '../../db/database.js';
import { QUESTION_COLUMNS, questionFromRow } from '../signalText.js';
import type { TaskView } from '../store.js';
import { COMMENT_FIELDS, VIEW, commentFromSignal } from './signals.js';
import { TASK_ROW_NAMES, mirroredRow, type MirroredRead } from './taskRows.js';

/**
 * get_task's reads in one statement (TaskStore.taskView): the task's row from our task-row mirror
 * (taskRows.ts) with its newest comments (signals, as normalizedComments reads them), its questions, its
 * dependents and the heads of its dependencies that have rows, each as a JSON array beside it. It was
 * the cheaper while each statement was a transaction of its own; inside a reading tool's one snapshot the
 * two ways cost alike (docs/storage.md). A task without a row is read as before, statement by statement.
 */
export const TASK_VIEW: MirroredRead = `SELECT r.task_id AS id, ${TASK_ROW_NAMES},
  (SELECT json_group_array(json_array(${COMMENT_FIELDS})) FROM (${VIEW.withMeta}
    WHERE sg.task_id = @id AND sg.id < @before ORDER BY sg.id DESC LIMIT CAST(@comments AS INTEGER))) AS view_comments,
  (SELECT json_group_array(json_array(${QUESTION_COLUMNS})) FROM (SELECT ${QUESTION_COLUMNS} FROM task_signals
    WHERE task_id = @id AND verb = 'ask' ORDER BY id)) AS view_questions,
  (SELECT json_group_array(id) FROM (SELECT DISTINCT task_id AS id FROM task_dependencies
    WHERE depends_on_task_id = @id AND task_id <> @id ORDER BY task_id LIMIT CAST(@dependents AS INTEGER))) AS view_dependents,
  CASE WHEN r.depends_on <> '[]' THEN (SELECT json_group_array(json_array(h.task_id, h.title, h.status))
    FROM json_each(r.depends_on) d JOIN ralph_mcp_task_rows h ON h.task_id = d.value) END AS view_heads
  FROM ralph_mcp_task_rows r WHERE r.task_id = @id AND (SELECT schema_version FROM pragma_schema_version) = @v`;

/** Column names as the JSON arrays hold them (a quoted name unquoted). */
const names = (columns: string) => columns.split(',').map((c) => c.trim().replace(/"/g, ''));
const COMMENT_NAMES = names(COMMENT_FIELDS);
const QUESTION_NAMES = names(QUESTION_COLUMNS);
/**
 * A JSON array of arrays as records made by `make`, newest last when `reversed`. Loops, not map and
 * reverse: the same kind of array whether there are rows or none (Db.all says why that matters).
 */
function rowsOf<T>(json: unknown, keys: readonly string[], make: (r: Row) => T, reversed = false): T[] {
  const arrays = JSON.parse(String(json)) as unknown[][];
  const out: T[] = [];
  for (let j = 0; j < arrays.length; j++) {
    const values = arrays[reversed ? arrays.length - 1 - j : j]!;
    const row: Row = {};
    for (let i = 0; i < keys.length; i++) row[keys[i]!] = values[i];
    out.push(make(row));
  }
  return out;
}

/** The view from the mirror, or undefined when the task has no row there (then it is read statement by statement). */
export function mirroredTaskView(
  db: Db,
  id: number,
  comments: number,
  before: number | undefined,
  dependents: number,
  task: (r: Row) => TaskView['task'],
): TaskView | undefined {
  const r = mirroredRow(db, TASK_VIEW, {
    id,
    comments,
    before: before ?? Number.MAX_SAFE_INTEGER,
    dependents,
  });
  if (!r) return undefined;
  return {
    task: task(r),
    comments: rowsOf(r.view_comments, COMMENT_NAMES, commentFromSignal, true),
    dependents: JSON.parse(String(r.view_dependents)) as number[],
    questions: rowsOf(r.view_questions, QUESTION_NAMES, questionFromRow),
    heads: new Map(
      r.view_heads == null
        ? []
        : (JSON.parse(String(r.view_heads)) as [number, string, string][]).map(([dep, title, status]) => [
            dep,
            { title, status },
          ]),
    ),
  };
}
