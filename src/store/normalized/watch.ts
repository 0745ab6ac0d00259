import type { Db } from '../../db/database.js';
import type { WatchStore } from '../store.js';

/**
 * What a subscription to ralph://tasks/{id} compares on the normalized generation: the whole
 * `runtime_tasks` row and its `task_details` row, the count and last id of each list table, and its
 * signals (comments, questions) by count, last id, total length and answers. Indexed lookups only.
 */
const LISTS = `SELECT
  (SELECT count(*) || ':' || ifnull(max(id), 0) FROM task_tags WHERE task_id = t.id) AS tags,
  (SELECT count(*) || ':' || ifnull(max(id), 0) FROM task_dependencies WHERE task_id = t.id) AS deps,
  (SELECT count(*) || ':' || ifnull(max(id), 0) FROM task_acceptance_criteria WHERE task_id = t.id) AS criteria,
  (SELECT count(*) || ':' || ifnull(max(id), 0) FROM task_context_files WHERE task_id = t.id) AS files,
  (SELECT count(*) || ':' || ifnull(max(id), 0) FROM task_output_artifacts WHERE task_id = t.id) AS artifacts,
  (SELECT count(*) || ':' || ifnull(max(id), 0) || ':' || count(answer) || ':' || total(length(coalesce(text, summary, reason, question, what, "on", ''))) || ':' || total(length(answer))
     FROM task_signals WHERE task_id = t.id) AS signals
FROM (SELECT ? AS id) AS t`;

export function normalizedWatch(db: Db): Pick<WatchStore, 'taskFingerprint'> {
  return {
    taskFingerprint(id) {
      const runtime = db.get<{ details_id: number }>('SELECT * FROM runtime_tasks WHERE id = ?', id);
      if (!runtime) return null;
      const details = db.get('SELECT * FROM task_details WHERE id = ?', runtime.details_id);
      return JSON.stringify([runtime, details, db.get(LISTS, id)]);
    },
  };
}
