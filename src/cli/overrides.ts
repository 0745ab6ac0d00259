import { Db } from '../db/database.js';
import { inspectSchema } from '../db/schema.js';
import { parseJsonObject } from '../db/json.js';
import { StartupError } from '../errors.js';
import { locateProject } from '../project.js';
import type { Recipe } from '../registry/recipes.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { TOOL_NAMES } from '../registry/registry.js';
import { openProjectDb } from '../session/open.js';
import { readOverrides } from '../session/plan.js';
import { resolveTools, unknownNames } from '../session/resolveTools.js';

export interface OverridesOptions {
  project: string;
  db?: string | undefined;
  discipline: string;
  disable?: string[] | undefined;
  enable?: string[] | undefined;
  clear?: boolean | undefined;
}

/**
 * `ralph-mcp overrides`: shows or edits one discipline's `additional_disabled` list, validated against
 * the registry, and prints the tool set each recipe then gets. Editing is the one thing that may add
 * SPEC-070's nullable `mcp_tool_overrides` column to a database that lacks it (serving never does).
 */
export function overrides(opts: OverridesOptions): string {
  const editing = opts.disable !== undefined || opts.enable !== undefined || opts.clear === true;
  if ([opts.disable !== undefined, opts.enable !== undefined, opts.clear === true].filter(Boolean).length > 1) {
    throw new StartupError('give one of --disable, --enable or --clear');
  }
  const named = [...(opts.disable ?? []), ...(opts.enable ?? [])];
  const unknown = unknownNames(TOOL_NAMES, named);
  if (unknown.length > 0) throw new StartupError(`unknown tool(s): ${unknown.join(', ')} (\`ralph-mcp tools\` lists them)`);

  const project = locateProject(opts.project, opts.db);
  const { db } = openProjectDb(project.dbPath);
  try {
    if (editing) {
      // Read, change and write in one transaction; read leniently, so that --clear and --enable can
      // repair a value that names unknown tools (the case doctor reports), and keep any other keys.
      db.write(() => {
        if (!inspectSchema(db).hasToolOverrides) db.raw.exec('ALTER TABLE disciplines ADD COLUMN mcp_tool_overrides TEXT DEFAULT NULL');
        const row = db.get<{ o: unknown }>('SELECT mcp_tool_overrides AS o FROM disciplines WHERE name = ?', opts.discipline);
        if (!row) current(db, opts.discipline); // throws the "unknown discipline" error
        const stored = parseJsonObject(row?.o) ?? {};
        const before = Array.isArray(stored.additional_disabled) ? stored.additional_disabled.filter((t): t is string => typeof t === 'string') : [];
        let list = opts.clear ? [] : before;
        if (opts.disable) list = [...new Set([...list, ...opts.disable])];
        if (opts.enable) list = list.filter((t) => !opts.enable!.includes(t));
        const { additional_disabled: _old, ...rest } = stored;
        const next = list.length === 0 ? rest : { ...rest, additional_disabled: TOOL_NAMES.filter((t) => list.includes(t)) };
        db.run('UPDATE disciplines SET mcp_tool_overrides = ? WHERE name = ?', Object.keys(next).length === 0 ? null : JSON.stringify(next), opts.discipline);
      });
    }
    return report(opts.discipline, current(db, opts.discipline), loadRecipes(project));
  } finally {
    db.close();
  }
}

function current(db: Db, discipline: string): string[] {
  const hasColumn = inspectSchema(db).hasToolOverrides;
  const row = db.get<Record<string, unknown>>(
    hasColumn ? 'SELECT name, mcp_tool_overrides FROM disciplines WHERE name = ?' : 'SELECT name FROM disciplines WHERE name = ?',
    discipline,
  );
  if (!row) {
    const names = db.all<{ name: string }>('SELECT name FROM disciplines ORDER BY name').map((r) => r.name);
    throw new StartupError(`unknown discipline ${JSON.stringify(discipline)}; disciplines in this project: ${names.join(', ') || '(none)'}`);
  }
  return readOverrides(discipline, row.mcp_tool_overrides);
}

function report(discipline: string, disabled: string[], recipes: readonly Recipe[]): string {
  const lines = [`discipline ${discipline}: additional_disabled = ${disabled.length ? disabled.join(', ') : '(none)'}`, ''];
  for (const r of recipes) {
    const { enabled } = resolveTools(TOOL_NAMES, r.allow, disabled);
    lines.push(`${r.name.padEnd(15)} ${String(enabled.length).padStart(2)} tools: ${enabled.join(', ')}`);
  }
  return lines.join('\n');
}
