import type { Db } from '../../db/database.js';
import { sharedParts } from '../own/base.js';
import type { RalphStore } from '../store.js';
import { normalizedDisciplines } from './disciplines.js';
import { NORMALIZED_MIRROR } from './facets.js';
import { normalizedFeatures } from './features.js';
import { normalizedNames } from './names.js';
import { normalizedProject } from './project.js';
import { normalizedSearch } from './search.js';
import { insertSignal, normalizedComments, normalizedSignals } from './signals.js';
import { normalizedTasks, taskOf } from './tasks.js';
import { normalizedBlocked } from './blocked.js';
import { normalizedTemplates } from './templates.js';
import { normalizedWatch } from './watch.js';
import { fillQueued } from './taskRows.js';
import { mirroredTaskView } from './taskView.js';
import { taskViewOf } from '../taskView.js';

/**
 * The normalized generation (Ralph's head, 0c56edd): `subsystems`, `task_details` + `runtime_tasks`
 * with a child table per list, comments as `task_signals`, learnings as `subsystem_comments`, and
 * `task_templates` that tasks are pulled from.
 */
export function normalizedStore(db: Db): RalphStore {
  const { audit, claims, project, dataVersion, ...shared } = sharedParts(db, 'normalized', NORMALIZED_MIRROR);
  const tasks = normalizedTasks(db);
  const comments = normalizedComments(db);
  const signals = normalizedSignals(db);
  const separately = taskViewOf(tasks, comments, signals);
  return {
    ...shared,
    // Each write makes the task rows it (or another program before it) made stale again before it commits.
    write: (fn) =>
      shared.write(() => {
        const out = fn();
        fillQueued(db);
        return out;
      }),
    featureNoun: 'feature (subsystem)',
    tasks: {
      ...tasks,
      ...normalizedBlocked(db),
      taskView: (id, n, before, dependents) =>
        mirroredTaskView(db, id, n, before, dependents, taskOf) ?? separately(id, n, before, dependents),
    },
    search: normalizedSearch(db),
    comments,
    signals,
    features: normalizedFeatures(db),
    templates: normalizedTemplates(db),
    names: normalizedNames(db),
    disciplines: normalizedDisciplines(db),
    project: { ...project, ...normalizedProject(db) },
    audit: {
      ...audit,
      // signal_abort means what Ralph's `stuck` verb means: on this generation it is also that signal.
      recordAbort(by, reason) {
        const id = audit.recordAbort(by, reason);
        if (by.taskId !== null && db.get('SELECT 1 AS x FROM runtime_tasks WHERE id = ?', by.taskId))
          insertSignal(db, by, by.taskId, { verb: 'stuck', reason }, null);
        return id;
      },
    },
    claims,
    watch: { dataVersion, ...normalizedWatch(db) },
  };
}
