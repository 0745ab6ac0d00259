import type { Db } from '../../db/database.js';
import { sharedParts } from '../own/base.js';
import type { RalphStore } from '../store.js';
import { legacyComments } from './comments.js';
import { legacyDisciplines } from './disciplines.js';
import { legacyFeatures } from './features.js';
import { LEGACY_MIRROR } from './listMirrors.js';
import { legacyNames } from './names.js';
import { legacyProject } from './project.js';
import { legacySearch } from './search.js';
import { legacySignals } from './signals.js';
import { legacyTasks } from './tasks.js';
import { legacyBlocked } from './blocked.js';
import { legacyTemplates } from './templates.js';
import { legacyWatch } from './watch.js';
import { taskViewOf } from '../taskView.js';

/** The legacy generation (Ralph 936f316): `features`, `tasks` with JSON-array columns, `task_comments`. */
export function legacyStore(db: Db): RalphStore {
  const { audit, claims, project, dataVersion, ...shared } = sharedParts(db, 'legacy', LEGACY_MIRROR);
  const tasks = legacyTasks(db);
  const comments = legacyComments(db);
  const signals = legacySignals(db);
  return {
    ...shared,
    featureNoun: 'feature',
    tasks: { ...tasks, ...legacyBlocked(db), taskView: taskViewOf(tasks, comments, signals) },
    search: legacySearch(db),
    comments,
    signals,
    features: legacyFeatures(db),
    templates: legacyTemplates(),
    names: legacyNames(db),
    disciplines: legacyDisciplines(db),
    project: { ...project, ...legacyProject(db) },
    audit,
    claims,
    watch: { dataVersion, ...legacyWatch(db) },
  };
}
