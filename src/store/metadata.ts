import type { Db } from '../db/database.js';
import type { ProjectInfo } from './records.js';

/** The project's `metadata` row: the same table on both generations. */
export function projectInfo(db: Db): ProjectInfo {
  const r = db.get<{
    project_title: string;
    project_description: string | null;
    project_created: string | null;
    schema_version: string;
  }>('SELECT project_title, project_description, project_created, schema_version FROM metadata WHERE id = 1');
  return {
    title: r?.project_title ?? '',
    description: r?.project_description ?? null,
    created: r?.project_created ?? null,
    schema_version: r?.schema_version ?? '1.0',
  };
}
