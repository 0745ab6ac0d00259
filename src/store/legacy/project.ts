import type { Db } from '../../db/database.js';
import type { ResourceRow } from '../records.js';
import type { ProjectStore } from '../store.js';

/** The project's metadata row and the listings over everything (resources). */
export function legacyProject(db: Db): Pick<ProjectStore, 'projectInfo' | 'resourcePage'> {
  return {
    projectInfo() {
      const r = db.get<{ project_title: string; project_description: string | null; project_created: string | null; schema_version: string }>(
        'SELECT project_title, project_description, project_created, schema_version FROM metadata WHERE id = 1',
      );
      return { title: r?.project_title ?? '', description: r?.project_description ?? null, created: r?.project_created ?? null, schema_version: r?.schema_version ?? '1.0' };
    },
    resourcePage(offset, limit) {
      return db.all<ResourceRow>(
        `SELECT kind, key, title FROM (
           SELECT 0 AS o, 'tasks' AS kind, CAST(id AS TEXT) AS key, title, id AS k2 FROM tasks
           UNION ALL SELECT 1, 'features', name, display_name, 0 FROM features
           UNION ALL SELECT 2, 'disciplines', name, display_name, 0 FROM disciplines)
         ORDER BY o, k2, key LIMIT ? OFFSET ?`,
        limit,
        offset,
      );
    },
  };
}
