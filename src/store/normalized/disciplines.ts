import type { Db } from '../../db/database.js';
import { overridesView } from '../overrides.js';
import type { Discipline, DisciplineRow } from '../records.js';
import type { DisciplineChanges, DisciplineStore, McpServerInsert } from '../store.js';
import { disciplineId, hasOwnTables } from './sql.js';

/**
 * Disciplines on the normalized generation: a `disciplines` row (NOCASE-unique name), skills and MCP
 * servers (with ordered args and an env map) in child tables. SPEC-070's overrides have no column here
 * and Ralph's tables are never altered: they live in our ralph_mcp_discipline_overrides, by name.
 */

const COLUMNS = ['display_name', 'icon', 'color', 'system_prompt', 'conventions'] as const;
const UPDATE_SQL = Object.fromEntries(
  COLUMNS.map((c) => [c, `UPDATE disciplines SET ${c} = ? WHERE id = ?`]),
) as Record<(typeof COLUMNS)[number], string>;
const OVERRIDES_TABLE = 'ralph_mcp_discipline_overrides';

export function normalizedDisciplines(db: Db): DisciplineStore {
  const skillsOf = (id: number) =>
    db
      .all<{ skill: string }>('SELECT skill FROM discipline_skills WHERE discipline_id = ? ORDER BY id', id)
      .map((r) => r.skill);
  const writeSkills = (id: number, skills: readonly string[]) => {
    db.run('DELETE FROM discipline_skills WHERE discipline_id = ?', id);
    for (const s of skills) db.run('INSERT INTO discipline_skills (discipline_id, skill) VALUES (?, ?)', id, s);
  };
  const servers = (id: number) =>
    db
      .all<{ id: number; name: string; command: string }>(
        'SELECT id, name, command FROM discipline_mcp_servers WHERE discipline_id = ? ORDER BY id',
        id,
      )
      .map((s) => ({
        name: s.name,
        command: s.command,
        args: db
          .all<{ arg: string }>(
            'SELECT arg FROM discipline_mcp_server_args WHERE server_id = ? ORDER BY arg_order, id',
            s.id,
          )
          .map((a) => a.arg),
        env: Object.fromEntries(
          db
            .all<{ key: string; value: string }>(
              'SELECT key, value FROM discipline_mcp_server_env WHERE server_id = ? ORDER BY id',
              s.id,
            )
            .map((e) => [e.key, e.value]),
        ),
      }));
  // Replaced whole, as Ralph's update_discipline does: args in order (arg_order), env one row a key.
  const writeServers = (id: number, list: readonly McpServerInsert[]) => {
    const old = 'SELECT id FROM discipline_mcp_servers WHERE discipline_id = ?';
    db.run(`DELETE FROM discipline_mcp_server_args WHERE server_id IN (${old})`, id);
    db.run(`DELETE FROM discipline_mcp_server_env WHERE server_id IN (${old})`, id);
    db.run('DELETE FROM discipline_mcp_servers WHERE discipline_id = ?', id);
    for (const s of list) {
      const server = Number(
        db.run(
          'INSERT INTO discipline_mcp_servers (discipline_id, name, command) VALUES (?, ?, ?)',
          id,
          s.name,
          s.command,
        ).lastInsertRowid,
      );
      for (const [i, arg] of (s.args ?? []).entries())
        db.run('INSERT INTO discipline_mcp_server_args (server_id, arg, arg_order) VALUES (?, ?, ?)', server, arg, i);
      for (const [key, value] of Object.entries(s.env ?? {}))
        db.run('INSERT INTO discipline_mcp_server_env (server_id, key, value) VALUES (?, ?, ?)', server, key, value);
    }
  };
  const overridesRaw = (name: string): unknown =>
    hasOwnTables(db)
      ? (db.get<{ o: unknown }>(
          'SELECT mcp_tool_overrides AS o FROM ralph_mcp_discipline_overrides WHERE discipline = ?',
          name,
        )?.o ?? null)
      : null;

  return {
    listDisciplines() {
      return db.all<DisciplineRow>(
        'SELECT name, display_name, acronym, icon, color, description FROM disciplines ORDER BY id',
      );
    },
    getDiscipline(name) {
      const r = db.get('SELECT * FROM disciplines WHERE name = ?', name);
      if (!r) return undefined;
      const id = Number(r.id);
      const s = (v: unknown) => (typeof v === 'string' ? v : null);
      const d: Discipline = {
        name: String(r.name),
        display_name: String(r.display_name),
        acronym: String(r.acronym),
        icon: String(r.icon),
        color: String(r.color),
        description: s(r.description),
        system_prompt: s(r.system_prompt),
        skills: skillsOf(id),
        conventions: s(r.conventions),
        mcp_servers: servers(id),
        stack_id: typeof r.stack_id === 'number' ? r.stack_id : null,
        mcp_tool_overrides: overridesView(overridesRaw(String(r.name))),
      };
      return d;
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
      const id = Number(
        db.run(
          `INSERT INTO disciplines (name, display_name, acronym, icon, color, system_prompt, conventions)
           VALUES (@name, @display_name, @acronym, @icon, @color, @system_prompt, @conventions)`,
          {
            name: d.name,
            display_name: d.display_name,
            acronym: d.acronym,
            icon: d.icon,
            color: d.color,
            system_prompt: d.system_prompt,
            conventions: d.conventions,
          },
        ).lastInsertRowid,
      );
      writeSkills(id, d.skills);
    },
    updateDiscipline(name, changes: DisciplineChanges) {
      const id = disciplineId(db, name);
      for (const c of COLUMNS) if (changes[c] !== undefined) db.run(UPDATE_SQL[c], changes[c], id);
      if (changes.skills !== undefined) writeSkills(id, changes.skills);
      if (changes.mcp_servers !== undefined) writeServers(id, changes.mcp_servers);
    },
    deleteDiscipline(name) {
      if (hasOwnTables(db)) db.run('DELETE FROM ralph_mcp_discipline_overrides WHERE discipline = ?', name);
      // Skills and MCP servers go with it (ON DELETE CASCADE).
      db.run('DELETE FROM disciplines WHERE id = ?', disciplineId(db, name));
    },
    disciplineUsage(name) {
      const id = disciplineId(db, name);
      return {
        tasks: db.get<{ n: number }>(
          'SELECT count(*) AS n FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id WHERE d.discipline_id = ?',
          id,
        )!.n,
        templates: db.get<{ n: number }>(
          'SELECT count(*) AS n FROM task_templates tt JOIN task_details d ON d.id = tt.details_id WHERE d.discipline_id = ?',
          id,
        )!.n,
      };
    },
    toolOverrides(name) {
      const stored = db.get<{ name: string }>('SELECT name FROM disciplines WHERE name = ?', name)?.name;
      return stored === undefined ? undefined : { name: stored, raw: overridesRaw(stored) };
    },
    orphanOverrides() {
      if (!hasOwnTables(db)) return [];
      return db
        .all<{ d: string }>(
          'SELECT discipline AS d FROM ralph_mcp_discipline_overrides WHERE discipline NOT IN (SELECT name FROM disciplines) ORDER BY discipline',
        )
        .map((r) => r.d);
    },
    allToolOverrides() {
      return db
        .all<{ name: string }>('SELECT name FROM disciplines ORDER BY name')
        .map((r) => ({ name: r.name, raw: overridesRaw(r.name) }));
    },
    overridesLocation() {
      return hasOwnTables(db) ? `${OVERRIDES_TABLE}.mcp_tool_overrides` : null;
    },
    writeToolOverrides(name, json) {
      if (json === null) db.run('DELETE FROM ralph_mcp_discipline_overrides WHERE discipline = ?', name);
      else
        db.run(
          'INSERT INTO ralph_mcp_discipline_overrides (discipline, mcp_tool_overrides) VALUES (?, ?) ON CONFLICT (discipline) DO UPDATE SET mcp_tool_overrides = excluded.mcp_tool_overrides',
          name,
          json,
        );
    },
    mcpServerItems(name) {
      return servers(disciplineId(db, name));
    },
  };
}
