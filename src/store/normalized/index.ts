import type { Db } from '../../db/database.js';
import { baseStore } from '../base.js';
import type { RalphStore } from '../store.js';
import { normalizedWatch } from './watch.js';
import { normalizedDisciplines } from './disciplines.js';
import { normalizedFeatures } from './features.js';
import { normalizedNames } from './names.js';
import { normalizedProject } from './project.js';
import { normalizedSearch } from './search.js';
import { insertSignal, normalizedComments, normalizedSignals } from './signals.js';
import { normalizedTasks } from './tasks.js';

/**
 * The normalized generation (Ralph's head, 0c56edd): `subsystems`, `task_details` + `runtime_tasks`
 * with a child table per list, comments as `task_signals`, learnings as `subsystem_comments`.
 */
export function normalizedStore(db: Db): RalphStore {
  const base = baseStore(db, 'normalized');
  return {
    ...base,
    // signal_abort means what Ralph's `stuck` verb means: on this generation it is also that signal.
    recordAbort(by, reason) {
      const id = base.recordAbort(by, reason);
      if (by.taskId !== null && db.get('SELECT 1 AS x FROM runtime_tasks WHERE id = ?', by.taskId))
        insertSignal(db, by, by.taskId, { verb: 'stuck', reason }, null);
      return id;
    },
    featureNoun: 'feature (subsystem)',
    ...normalizedTasks(db),
    ...normalizedSearch(db),
    ...normalizedComments(db),
    ...normalizedSignals(db),
    ...normalizedFeatures(db),
    ...normalizedNames(db),
    ...normalizedDisciplines(db),
    ...normalizedProject(db),
    ...normalizedWatch(db),
  };
}
