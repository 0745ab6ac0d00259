// `npm run docs`: the reference tables generated from the code (run after `npm run build`):
// docs/tools.md, every tool with its kind, the recipes that allow it and what it does.
// `--check`: exit 1 when the file is not what the code generates (test/unit/docs.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';

const { REGISTRY } = await import('../dist/src/registry/registry.js');
const { RECIPES } = await import('../dist/src/registry/recipes.js');

const kind = (a) => (a.readOnlyHint ? 'read' : a.destructiveHint ? 'destructive' : 'write');
const cell = (s) => s.replaceAll('|', '\\|');
const rows = REGISTRY.map((t) => {
  const recipes = RECIPES.filter((r) => r.allow.includes(t.name)).map((r) =>
    r.narrow?.[t.name] ? `${r.name}*` : r.name,
  );
  // A tool some databases lack (its `generations`) says so beside its recipes.
  const only = t.generations ? ` (${t.generations.join(', ')} schema only)` : '';
  const allowed = `${recipes.join(', ') || '—'}${only}`;
  return `| \`${t.name}\` | ${t.category} | ${kind(t.annotations)} | ${allowed} | ${cell(t.description)} |`;
});
const narrowed = RECIPES.flatMap((r) =>
  Object.entries(r.narrow ?? {}).map(([tool, fields]) => `\`${tool}\` in ${r.name} accepts only ${fields.join(', ')}`),
);
const text = [
  '# Tools',
  '',
  'Generated from the registry by `npm run docs`; do not edit by hand. Every tool, in `tools/list` order.',
  'A session sees the tools its recipe allows, less what its discipline removes; without a recipe, all of them.',
  '"(normalized schema only)": the tool is served only on a database of Ralph\'s normalized schema.',
  '',
  '| tool | category | kind | recipes | what it does |',
  '|---|---|---|---|---|',
  ...rows,
  '',
  ...(narrowed.length ? [`\\* narrowed in that recipe: ${narrowed.join('; ')}.`, ''] : []),
].join('\n');
const file = new URL('../docs/tools.md', import.meta.url);
if (process.argv.includes('--check')) {
  if (readFileSync(file, 'utf8') !== text) {
    process.stderr.write('docs/tools.md is not what the registry generates: run npm run docs\n');
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
  process.stderr.write(`docs/tools.md: ${REGISTRY.length} tools\n`);
}
