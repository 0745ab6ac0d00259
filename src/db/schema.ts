import { readFileSync } from 'node:fs';
import type { Db } from './database.js';
import { schemaFile } from '../packageInfo.js';

/** Ralph's schema version (PRAGMA user_version). It is Ralph's: we read it, only `init` writes it. */
export const RALPH_USER_VERSION = 1;
export const RALPH_TABLES = ['metadata', 'features', 'disciplines', 'tasks', 'task_comments', 'recipe_configs'] as const;

export interface SchemaInfo {
  userVersion: number;
  missingTables: string[];
  /** SPEC-070's optional column; databases Ralph wrote before SPEC-070 do not have it. */
  hasToolOverrides: boolean;
}

export function inspectSchema(db: Db): SchemaInfo {
  const userVersion = Number(db.raw.pragma('user_version', { simple: true }));
  const present = new Set(
    db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name),
  );
  const missingTables = RALPH_TABLES.filter((t) => !present.has(t));
  const hasToolOverrides =
    present.has('disciplines') &&
    db.all<{ name: string }>('SELECT name FROM pragma_table_info(?)', 'disciplines').some((c) => c.name === 'mcp_tool_overrides');
  return { userVersion, missingTables, hasToolOverrides };
}

export const ralphDdl = (): string => readFileSync(schemaFile('ralph.sql'), 'utf8');
