import type { Db } from '../../db/database.js';
import type { WatchStore } from '../store.js';

/**
 * What a subscription to ralph://tasks/{id} compares on the legacy generation: the whole `tasks` row
 * (every field get_task shows lives in it, lists as JSON), its comments' count, last id and total
 * length, and its questions' answers (ours). Three primary-key or indexed lookups.
 */
export function legacyWatch(db: Db): Pick<WatchStore, 'taskFingerprint'> {
  return {
    taskFingerprint(id) {
      const row = db.get('SELECT * FROM tasks WHERE id = ?', id);
      if (!row) return null;
      const comments = db.get(
        'SELECT count(*) AS n, max(id) AS last, total(length(body)) AS len FROM task_comments WHERE task_id = ?',
        id,
      );
      const answers = ownSignals(db)
        ? db.get(
            'SELECT count(*) AS n, max(id) AS last, count(answer) AS answered, total(length(answer)) AS len FROM ralph_mcp_task_signals WHERE task_id = ?',
            id,
          )
        : null;
      return JSON.stringify([row, comments, answers]);
    },
  };
}

/** Whether our legacy signals table exists yet (made with our tables on the first write). Remembered once seen. */
const seen = new WeakSet<Db>();
function ownSignals(db: Db): boolean {
  if (seen.has(db)) return true;
  const found =
    db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_task_signals'") !== undefined;
  if (found) seen.add(db);
  return found;
}
