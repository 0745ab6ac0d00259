import type { Db } from '../../db/database.js';
import { parseJsonArray, toJson } from '../json.js';
import type { DisciplineRow } from '../records.js';
import type { DisciplineChanges, DisciplineStore, McpServerInsert } from '../store.js';
import { disciplineFromRow } from './rows.js';

/**
 * Disciplines on the legacy generation: one `disciplines` row each (name is the key), lists as JSON.
 * SPEC-070's overrides live in the nullable `mcp_tool_overrides` column, which a database may lack: only
 * `ralph-mcp overrides` adds it (our one change to Ralph's tables), when someone sets one.
 */

const UPDATABLE = ['display_name', 'icon', 'color', 'system_prompt', 'skills', 'conventions'] as const;
const UPDATE_SQL = Object.fromEntries(
  UPDATABLE.map((c) => [c, `UPDATE disciplines SET ${c} = ? WHERE name = ?`]),
) as Record<(typeof UPDATABLE)[number], string>;

/** The JSON Ralph writes for its McpServerConfig list: empty args and env left out (skip_serializing_if). */
const serversJson = (servers: readonly McpServerInsert[]): string =>
  JSON.stringify(
    servers.map((s) => ({
      name: s.name,
      command: s.command,
      ...(s.args !== undefined && s.args.length > 0 ? { args: s.args } : {}),
      ...(s.env !== undefined && Object.keys(s.env).length > 0 ? { env: s.env } : {}),
    })),
  );

const hasOverridesColumn = (db: Db): boolean =>
  db
    .all<{ name: string }>('SELECT name FROM pragma_table_info(?)', 'disciplines')
    .some((c) => c.name === 'mcp_tool_overrides');

export function legacyDisciplines(db: Db): DisciplineStore {
  return {
    listDisciplines() {
      return db.all('SELECT name, display_name, acronym, icon, color, description FROM disciplines ORDER BY rowid').map(
        (r): DisciplineRow => ({
          name: String(r.name),
          display_name: String(r.display_name),
          acronym: String(r.acronym),
          icon: String(r.icon),
          color: String(r.color),
          description: typeof r.description === 'string' ? r.description : null,
        }),
      );
    },
    getDiscipline(name) {
      const row = db.get('SELECT * FROM disciplines WHERE name = ?', name);
      return row ? disciplineFromRow(row) : undefined;
    },
    disciplineName(name) {
      return db.get<{ name: string }>('SELECT name FROM disciplines WHERE name = ?', name)?.name;
    },
    disciplineNames(limit = -1) {
      return db
        .all<{ name: string }>('SELECT name FROM disciplines ORDER BY name LIMIT CAST(? AS INTEGER)', limit)
        .map((r) => r.name);
    },
    createDiscipline(d) {
      db.run(
        `INSERT INTO disciplines (name, display_name, acronym, icon, color, system_prompt, skills, conventions, mcp_servers)
         VALUES (@name, @display_name, @acronym, @icon, @color, @system_prompt, @skills, @conventions, '[]')`,
        { ...d, skills: toJson(d.skills) },
      );
    },
    updateDiscipline(name, changes: DisciplineChanges) {
      for (const f of UPDATABLE) {
        const v = changes[f];
        if (v !== undefined) db.run(UPDATE_SQL[f], f === 'skills' ? toJson(v) : v, name);
      }
      if (changes.mcp_servers !== undefined)
        db.run('UPDATE disciplines SET mcp_servers = ? WHERE name = ?', serversJson(changes.mcp_servers), name);
    },
    deleteDiscipline(name) {
      db.run('DELETE FROM disciplines WHERE name = ?', name);
    },
    disciplineUsage(name) {
      return {
        tasks: db.get<{ n: number }>('SELECT count(*) AS n FROM tasks WHERE discipline = ?', name)!.n,
        templates: 0,
      };
    },
    toolOverrides(name) {
      const row = hasOverridesColumn(db)
        ? db.get<{ name: string; raw: unknown }>(
            'SELECT name, mcp_tool_overrides AS raw FROM disciplines WHERE name = ?',
            name,
          )
        : db.get<{ name: string; raw: unknown }>('SELECT name, NULL AS raw FROM disciplines WHERE name = ?', name);
      return row;
    },
    // The overrides are a column of the discipline's own row: they go with it.
    orphanOverrides: () => [],
    allToolOverrides() {
      return hasOverridesColumn(db)
        ? db.all<{ name: string; raw: unknown }>(
            'SELECT name, mcp_tool_overrides AS raw FROM disciplines ORDER BY name',
          )
        : db.all<{ name: string; raw: unknown }>('SELECT name, NULL AS raw FROM disciplines ORDER BY name');
    },
    overridesLocation() {
      return hasOverridesColumn(db) ? 'disciplines.mcp_tool_overrides' : null;
    },
    writeToolOverrides(name, json) {
      if (!hasOverridesColumn(db))
        db.raw.exec('ALTER TABLE disciplines ADD COLUMN mcp_tool_overrides TEXT DEFAULT NULL');
      db.run('UPDATE disciplines SET mcp_tool_overrides = ? WHERE name = ?', json, name);
    },
    mcpServerItems(name) {
      const raw = db.get<{ mcp_servers: unknown }>(
        'SELECT mcp_servers FROM disciplines WHERE name = ?',
        name,
      )?.mcp_servers;
      if (typeof raw === 'string' && raw.trim() !== '') {
        try {
          const v: unknown = JSON.parse(raw);
          if (!Array.isArray(v)) return null;
        } catch {
          return null;
        }
      }
      return parseJsonArray(raw);
    },
  };
}
