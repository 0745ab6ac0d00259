import type { Db } from '../../db/database.js';
import type { ResourceRow } from '../records.js';
import type { ProjectStore } from '../store.js';

/** The listing over everything (resources). */
export function legacyProject(db: Db): Pick<ProjectStore, 'resourcePage'> {
  return {
    resourcePage(offset, limit) {
      return db.all<ResourceRow>(
        `SELECT kind, key, title FROM (
           SELECT 0 AS o, 'tasks' AS kind, CAST(id AS TEXT) AS key, title, id AS k2 FROM tasks
           UNION ALL SELECT 1, 'features', name, display_name, 0 FROM features
           UNION ALL SELECT 2, 'disciplines', name, display_name, 0 FROM disciplines)
         ORDER BY o, k2, key LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`,
        limit,
        offset,
      );
    },
  };
}
