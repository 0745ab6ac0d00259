import { StartupError } from '../domain/errors.js';
import { RECIPES as BUILTIN, type Recipe } from '../registry/recipes.js';
import { REGISTRY } from '../registry/registry.js';

/**
 * `ralph-mcp tools [--recipe R] [--read-only]`: the registry as a table, the reference to read before
 * editing recipes. --read-only keeps the tools a `--read-only` session may serve (annotated readOnlyHint).
 */
export function toolsTable(recipeName?: string, recipes: readonly Recipe[] = BUILTIN, readOnly = false): string {
  let tools = readOnly ? REGISTRY.filter((t) => t.annotations.readOnlyHint) : REGISTRY;
  if (recipeName !== undefined) {
    const recipe = recipes.find((r) => r.name === recipeName);
    if (!recipe)
      throw new StartupError(
        `unknown recipe ${JSON.stringify(recipeName)}; valid recipes: ${recipes.map((r) => r.name).join(', ')}`,
      );
    tools = tools.filter((t) => recipe.allow.includes(t.name));
  }
  const rows = tools.map((t) => {
    const a = t.annotations;
    const kind = a.readOnlyHint ? 'read' : a.destructiveHint ? 'destructive' : 'write';
    const allowedBy = recipes
      .filter((r) => r.allow.includes(t.name))
      .map((r) => (r.narrow?.[t.name] ? `${r.name}*` : r.name));
    return [t.name, t.category, kind, `${allowedBy.join(', ') || '(none: full suite only)'}${onlyOn(t)}`];
  });
  const header = ['TOOL', 'CATEGORY', 'KIND', 'RECIPES'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const out = [line(header), ...rows.map(line)];
  if (recipes.some((r) => r.narrow && Object.keys(r.narrow).some((n) => tools.some((t) => t.name === n)))) {
    out.push(
      '',
      `* narrowed in that recipe: ${recipes.flatMap((r) => Object.entries(r.narrow ?? {}).map(([n, f]) => `${n} in ${r.name} accepts only ${f.join(', ')}`)).join('; ')}`,
    );
  }
  return out.join('\n');
}

/** A tool some databases lack (toolkit/tool.ts `generations`): said beside its recipes. */
const onlyOn = (t: (typeof REGISTRY)[number]): string =>
  t.generations ? ` (${t.generations.join(', ')} schema only)` : '';
