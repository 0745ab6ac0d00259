import type { Db } from '../../db/database.js';
import { baseStore } from '../base.js';
import type { RalphStore } from '../store.js';
import { legacyWatch } from './watch.js';
import { legacyComments } from './comments.js';
import { legacyDisciplines } from './disciplines.js';
import { legacyFeatures } from './features.js';
import { legacyNames } from './names.js';
import { legacyProject } from './project.js';
import { legacySearch } from './search.js';
import { legacySignals } from './signals.js';
import { legacyTasks } from './tasks.js';

/** The legacy generation (Ralph 936f316): `features`, `tasks` with JSON-array columns, `task_comments`. */
export function legacyStore(db: Db): RalphStore {
  return {
    ...baseStore(db, 'legacy'),
    featureNoun: 'feature',
    ...legacyTasks(db),
    ...legacySearch(db),
    ...legacyComments(db),
    ...legacySignals(db),
    ...legacyFeatures(db),
    ...legacyNames(db),
    ...legacyDisciplines(db),
    ...legacyProject(db),
    ...legacyWatch(db),
  };
}
