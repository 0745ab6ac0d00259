import Database from 'better-sqlite3';
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
  /**
   * Columns of Ralph's tables that differ from schema/ralph.sql in a way ralph-mcp cannot work with,
   * one message per table ("table tasks lacks column hints (it has unknown column tip: renamed?)").
   * Empty for every database Ralph version 1 writes. See columnDrift.
   */
  drift: string[];
}

/** Columns ralph-mcp copes without: SPEC-070's override column, absent from databases before it. */
const OPTIONAL_COLUMNS: Readonly<Record<string, readonly string[]>> = { disciplines: ['mcp_tool_overrides'] };
/** The tables ralph-mcp inserts rows into (the others it only reads: metadata, recipe_configs). */
const INSERTED_TABLES = new Set(['features', 'disciplines', 'tasks', 'task_comments']);

interface Column {
  name: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

let expected: Map<string, Column[]> | undefined;
/**
 * The columns of Ralph's tables as schema/ralph.sql declares them: the DDL is run on an in-memory
 * database and read back with PRAGMA table_info, so there is no second list to keep in step with it.
 */
export function expectedColumns(): Map<string, Column[]> {
  if (!expected) {
    const mem = new Database(':memory:');
    try {
      mem.exec(ralphDdl());
      expected = new Map(RALPH_TABLES.map((t) => [t, mem.prepare('SELECT name, "notnull", dflt_value, pk FROM pragma_table_info(?)').all(t) as Column[]]));
    } finally {
      mem.close();
    }
  }
  return expected;
}

/**
 * Schema drift, as a newer (or older, or hand-edited) Ralph could leave it. Refused, because ralph-mcp
 * would then fail or write wrong rows:
 * - a column of schema/ralph.sql missing (dropped, or renamed: the unknown columns are named beside it);
 * - in a table ralph-mcp inserts into, a column that is NOT NULL without a default while ours is not,
 *   or an unknown NOT NULL column without a default: our INSERTs do not fill it, so every one would fail.
 * Fine: unknown columns that are nullable or have a default (a newer Ralph may add those; ralph-mcp
 * keeps them as they are), and SPEC-070's mcp_tool_overrides missing.
 */
export function columnDrift(db: Db, tables: readonly string[]): string[] {
  const problems: string[] = [];
  for (const table of tables) {
    const want = expectedColumns().get(table);
    if (!want) continue;
    const have = db.all<Column>('SELECT name, "notnull", dflt_value, pk FROM pragma_table_info(?)', table);
    const known = new Set(want.map((c) => c.name));
    const optional = OPTIONAL_COLUMNS[table] ?? [];
    const missing = want.filter((c) => !have.some((h) => h.name === c.name) && !optional.includes(c.name)).map((c) => c.name);
    const unknown = have.filter((h) => !known.has(h.name) && !optional.includes(h.name));
    const parts: string[] = [];
    if (missing.length > 0) {
      const renamed = unknown.length > 0 ? ` (it has unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => c.name).join(', ')}: renamed?)` : '';
      parts.push(`lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}${renamed}`);
    }
    if (INSERTED_TABLES.has(table)) {
      const required = (c: Column) => c.notnull === 1 && c.dflt_value === null && c.pk === 0;
      const newlyRequired = have.filter((h) => required(h) && (!known.has(h.name) || !required(want.find((w) => w.name === h.name)!)));
      if (newlyRequired.length > 0) {
        parts.push(`has NOT NULL column${newlyRequired.length > 1 ? 's' : ''} without a default that ralph-mcp does not fill: ${newlyRequired.map((c) => c.name).join(', ')}`);
      }
    }
    if (parts.length > 0) problems.push(`table ${table} ${parts.join('; ')}`);
  }
  return problems;
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
  const drift = columnDrift(db, RALPH_TABLES.filter((t) => present.has(t)));
  return { userVersion, missingTables, hasToolOverrides, drift };
}

export const ralphDdl = (): string => readFileSync(schemaFile('ralph.sql'), 'utf8');
