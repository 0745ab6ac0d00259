import { parseJsonObject } from '../store/json.js';
import { openStore } from '../store/open/openStore.js';
import type { RalphStore } from '../store/store.js';
import { StartupError } from '../domain/errors.js';
import { locateProject } from '../domain/project.js';
import type { Recipe } from '../registry/recipes.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { TOOL_NAMES, toolsAbsentOn } from '../registry/registry.js';
import { readOverrides } from '../session/overrides.js';
import { resolveTools, unknownNames } from '../registry/enabled.js';

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
 * the registry, and prints the tool set each recipe then gets. On the legacy generation, editing is the
 * one thing that may add SPEC-070's nullable `mcp_tool_overrides` column to a database that lacks it
 * (serving never does); on the normalized one, overrides live in a table of ours (Ralph's tables are
 * never altered there).
 */
export function overrides(opts: OverridesOptions): string {
  const editing = opts.disable !== undefined || opts.enable !== undefined || opts.clear === true;
  if ([opts.disable !== undefined, opts.enable !== undefined, opts.clear === true].filter(Boolean).length > 1) {
    throw new StartupError('give one of --disable, --enable or --clear');
  }
  const named = [...(opts.disable ?? []), ...(opts.enable ?? [])];
  const unknown = unknownNames(TOOL_NAMES, named);
  if (unknown.length > 0)
    throw new StartupError(`unknown tool(s): ${unknown.join(', ')} (\`ralph-mcp tools\` lists them)`);

  const project = locateProject(opts.project, opts.db);
  const { store } = openStore(project.dbPath);
  try {
    if (editing) {
      // Overrides left by a deleted discipline (doctor names them): --clear removes them. Asked before
      // our tables are made again, which drops every orphan (so the answer says what happened).
      if (opts.clear && store.disciplines.orphanOverrides().includes(opts.discipline)) {
        store.write(() => store.disciplines.writeToolOverrides(opts.discipline, null));
        store.ensureOwnTables();
        return `removed the overrides of ${opts.discipline}, a discipline that no longer exists`;
      }
      if (store.generation === 'normalized') store.ensureOwnTables();
      // Read, change and write in one transaction; read leniently, so that --clear and --enable can
      // repair a value that names unknown tools (the case doctor reports). Other keys make the value
      // unreadable for a launch: --clear drops them; --disable/--enable refuse to guess what they meant.
      store.write(() => {
        const row = store.disciplines.toolOverrides(opts.discipline);
        if (!row) current(store, opts.discipline); // throws the "unknown discipline" error
        const stored = parseJsonObject(row?.raw) ?? {};
        const others = Object.keys(stored).filter((k) => k !== 'additional_disabled');
        if (others.length > 0 && !opts.clear) {
          throw new StartupError(
            `the overrides of discipline ${JSON.stringify(row!.name)} have key(s) ${others.map((k) => JSON.stringify(k)).join(', ')} besides "additional_disabled"; run --clear first, then --disable the tools again`,
          );
        }
        const before = Array.isArray(stored.additional_disabled)
          ? stored.additional_disabled.filter((t): t is string => typeof t === 'string')
          : [];
        let list = opts.clear ? [] : before;
        if (opts.disable) list = [...new Set([...list, ...opts.disable])];
        if (opts.enable) list = list.filter((t) => !opts.enable!.includes(t));
        store.disciplines.writeToolOverrides(
          row!.name,
          list.length === 0
            ? null
            : JSON.stringify({ additional_disabled: TOOL_NAMES.filter((t) => list.includes(t)) }),
        );
      });
    }
    // Each recipe's set as a session on this database gets it (without the tools its generation lacks).
    const absent = toolsAbsentOn(store.generation);
    return report(opts.discipline, current(store, opts.discipline), absent, loadRecipes(project));
  } finally {
    store.close();
  }
}

function current(store: RalphStore, discipline: string): string[] {
  const row = store.disciplines.toolOverrides(discipline);
  if (!row) {
    throw new StartupError(
      `unknown discipline ${JSON.stringify(discipline)}; disciplines in this project: ${store.disciplines.disciplineNames().join(', ') || '(none)'}`,
    );
  }
  return readOverrides(row.name, row.raw, store.disciplines.overridesLocation() ?? undefined);
}

function report(discipline: string, disabled: string[], absent: string[], recipes: readonly Recipe[]): string {
  const lines = [
    `discipline ${discipline}: additional_disabled = ${disabled.length ? disabled.join(', ') : '(none)'}`,
    '',
  ];
  for (const r of recipes) {
    const { enabled } = resolveTools(TOOL_NAMES, r.allow, [...disabled, ...absent]);
    lines.push(`${r.name.padEnd(15)} ${String(enabled.length).padStart(2)} tools: ${enabled.join(', ')}`);
  }
  return lines.join('\n');
}
