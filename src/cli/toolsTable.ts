import { StartupError } from '../errors.js';
import { RECIPES, RECIPE_NAMES, recipeByName } from '../registry/recipes.js';
import { REGISTRY } from '../registry/registry.js';

/** `ralph-mcp tools [--recipe R]`: the registry as a table, the reference to read before editing recipes. */
export function toolsTable(recipeName?: string): string {
  let tools = REGISTRY;
  if (recipeName !== undefined) {
    const recipe = recipeByName(recipeName);
    if (!recipe) throw new StartupError(`unknown recipe ${JSON.stringify(recipeName)}; valid recipes: ${RECIPE_NAMES.join(', ')}`);
    tools = REGISTRY.filter((t) => recipe.allow.includes(t.name));
  }
  const rows = tools.map((t) => {
    const a = t.annotations;
    const kind = a.readOnlyHint ? 'read' : a.destructiveHint ? 'destructive' : 'write';
    const recipes = RECIPES.filter((r) => r.allow.includes(t.name)).map((r) => (r.narrow?.[t.name] ? `${r.name}*` : r.name));
    return [t.name, t.category, kind, recipes.join(', ') || '(none: full suite only)'];
  });
  const header = ['TOOL', 'CATEGORY', 'KIND', 'RECIPES'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const out = [line(header), ...rows.map(line)];
  if (RECIPES.some((r) => r.narrow && Object.keys(r.narrow).some((n) => tools.some((t) => t.name === n)))) {
    out.push('', '* narrowed in that recipe: ' + RECIPES.flatMap((r) => Object.entries(r.narrow ?? {}).map(([n, f]) => `${n} in ${r.name} accepts only ${f.join(', ')}`)).join('; '));
  }
  return out.join('\n');
}
