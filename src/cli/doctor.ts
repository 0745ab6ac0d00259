import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { Db } from '../db/database.js';
import { OWN_SCHEMA_VERSION } from '../db/ownSchema.js';
import { RALPH_USER_VERSION, RALPH_TABLES, inspectSchema } from '../db/schema.js';
import { projectPaths } from '../project.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { TOOL_NAMES } from '../registry/registry.js';
import { readOverrides } from '../session/plan.js';
import { resolveTools } from '../session/resolveTools.js';
import { packageVersion } from '../packageInfo.js';

interface Check {
  ok: boolean;
  label: string;
  detail: string;
}

/**
 * `ralph-mcp doctor`: every check on one line, ✓ or ✗ with what was found. Reads only (the database is
 * opened read-only); exits non-zero if any check fails.
 */
export function doctor(projectDir: string, dbOverride?: string): { ok: boolean; text: string } {
  const p = projectPaths(projectDir, dbOverride);
  const checks: Check[] = [];
  const check = (label: string, fn: () => string) => {
    try {
      checks.push({ ok: true, label, detail: fn() });
    } catch (err) {
      checks.push({ ok: false, label, detail: (err as Error).message });
    }
  };
  const info = (label: string, detail: string) => checks.push({ ok: true, label, detail });

  info('ralph-mcp', packageVersion());
  info('node', process.version + (Number(process.versions.node.split('.')[0]) >= 20 ? '' : ' (ralph-mcp needs >= 20)'));
  check('project', () => {
    if (!existsSync(p.root) || !statSync(p.root).isDirectory()) throw new Error(`${p.root} is not a directory`);
    if (!existsSync(p.ralphDir)) throw new Error(`${p.root} has no .ralph/ folder (ralph-mcp init creates one)`);
    return p.root;
  });

  let db: Db | undefined;
  check('database', () => {
    if (!existsSync(p.dbPath)) throw new Error(`not found at ${p.dbPath} (ralph-mcp init creates it)`);
    db = Db.open(p.dbPath, { readonly: true });
    db.get('SELECT count(*) AS n FROM sqlite_master');
    return `${p.dbPath} (readable)`;
  });
  if (db) {
    const d = db;
    info('sqlite', d.get<{ v: string }>('SELECT sqlite_version() AS v')!.v);
    check('integrity', () => {
      const rows = d.all<{ integrity_check: string }>('PRAGMA integrity_check');
      const msgs = rows.map((r) => r.integrity_check);
      if (msgs.length !== 1 || msgs[0] !== 'ok') throw new Error(`integrity_check: ${msgs.slice(0, 5).join('; ')}`);
      return 'ok';
    });
    let hasOverrides = false;
    check('schema', () => {
      const s = inspectSchema(d);
      if (s.missingTables.length) throw new Error(`missing Ralph tables: ${s.missingTables.join(', ')}`);
      if (s.userVersion !== RALPH_USER_VERSION) throw new Error(`user_version ${s.userVersion}; this ralph-mcp understands ${RALPH_USER_VERSION}`);
      if (s.drift.length) throw new Error(`schema drift: ${s.drift.join('; ')}`);
      hasOverrides = s.hasToolOverrides;
      return `user_version ${s.userVersion}, tables ${RALPH_TABLES.join(', ')}${s.hasToolOverrides ? ', mcp_tool_overrides column present' : ' (no mcp_tool_overrides column: no discipline overrides)'}`;
    });
    check('ralph-mcp tables', () => {
      const has = d.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_meta'");
      if (!has) return 'none yet (created on the first write)';
      const v = d.get<{ value: string }>("SELECT value FROM ralph_mcp_meta WHERE key = 'schema_version'")?.value;
      if (Number(v) > OWN_SCHEMA_VERSION) throw new Error(`version ${v}, newer than this ralph-mcp understands (${OWN_SCHEMA_VERSION}): writes would be refused; upgrade ralph-mcp`);
      return `version ${v ?? '?'}`;
    });
    const disciplines = (() => {
      try {
        return d.all<{ name: string; o: unknown }>(
          hasOverrides ? 'SELECT name, mcp_tool_overrides AS o FROM disciplines ORDER BY name' : 'SELECT name, NULL AS o FROM disciplines ORDER BY name',
        );
      } catch {
        return [];
      }
    })();
    const parsed = new Map<string, string[]>();
    for (const row of disciplines) {
      check(`overrides ${row.name}`, () => {
        const list = readOverrides(row.name, row.o);
        parsed.set(row.name, list);
        return list.length ? `disables ${list.join(', ')}` : 'none';
      });
    }
    check('recipes', () => {
      const recipes = loadRecipes(p);
      const empty: string[] = [];
      for (const r of recipes) {
        if (resolveTools(TOOL_NAMES, r.allow).enabled.length === 0) empty.push(r.name);
        for (const [name, list] of parsed) if (resolveTools(TOOL_NAMES, r.allow, list).enabled.length === 0) empty.push(`${r.name}+${name}`);
      }
      if (empty.length) throw new Error(`no tools left in: ${empty.join(', ')}`);
      return `${recipes.length} recipes resolve (${recipes.map((r) => r.name).join(', ')}), with each discipline too`;
    });
    d.close();
  }
  for (const f of [p.learningsFile, p.progressFile]) {
    check(`state file ${f.slice(p.root.length + 1)}`, () => {
      if (existsSync(f)) {
        accessSync(f, constants.W_OK);
        return 'writable';
      }
      accessSync(p.ralphDir, constants.W_OK);
      return 'absent; will be created on first append';
    });
  }
  const ok = checks.every((c) => c.ok);
  const text = checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.label.padEnd(24)} ${c.detail}`).join('\n');
  return { ok, text: `${text}\n${ok ? 'all checks passed' : `${checks.filter((c) => !c.ok).length} check(s) failed`}` };
}

