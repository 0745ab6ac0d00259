import type { Db } from '../../db/database.js';
import { baseStore } from '../base.js';
import type { RalphStore } from '../store.js';
import { normalizedDisciplines } from './disciplines.js';
import { normalizedFeatures } from './features.js';
import { normalizedNames } from './names.js';
import { normalizedProject } from './project.js';
import { normalizedSearch } from './search.js';
import { normalizedComments } from './signals.js';
import { normalizedTasks } from './tasks.js';

/**
 * The normalized generation (Ralph's head, 0c56edd): `subsystems`, `task_details` + `runtime_tasks`
 * with a child table per list, comments as `task_signals`, learnings as `subsystem_comments`.
 */
export function normalizedStore(db: Db): RalphStore {
  return {
    ...baseStore(db, 'normalized'),
    featureNoun: 'feature (subsystem)',
    ...normalizedTasks(db),
    ...normalizedSearch(db),
    ...normalizedComments(db),
    ...normalizedFeatures(db),
    ...normalizedNames(db),
    ...normalizedDisciplines(db),
    ...normalizedProject(db),
  };
}
