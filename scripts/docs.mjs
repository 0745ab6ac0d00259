// `npm run docs`: the reference tables generated from the code (run after `npm run build`; the tables
// themselves are written by scripts/referenceTables.ts):
// - docs/tools.md, a whole generated page: every tool with its kind, the recipes that allow it and what it does;
// - in docs/reference.md, between `<!-- generated: NAME … -->` and `<!-- end of generated: NAME -->` markers
//   (hand-written prose around them stays as it is): `cli`, the command line from its table
//   (src/cli/commandTable.ts, which yargs reads too); `limits`, each argument's size limit from the tools'
//   input schemas; `bounds`, what one request may cost, from src/domain/limits.ts (which the code enforces).
// `--check`: exit 1, naming each page or block, when any differs from what the code generates (a block whose
// markers are missing counts as differing); test/unit/docs.test.ts runs it. `--docs DIR`: that folder
// instead of docs/ (the test checks a changed copy).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const tables = await import('../dist/scripts/referenceTables.js');

const at = process.argv.indexOf('--docs');
const dir = at === -1 ? fileURLToPath(new URL('../docs', import.meta.url)) : process.argv[at + 1];
const check = process.argv.includes('--check');

/** Whole pages, then blocks inside a page: [file, block name or null, generate]. */
const GENERATED = [
  ['tools.md', null, tables.toolsPage],
  ['reference.md', 'cli', tables.cliTables],
  ['reference.md', 'limits', tables.limitsTables],
  ['reference.md', 'bounds', tables.boundsTable],
];

const begin = (name) => `<!-- generated: ${name}, by npm run docs from the code; do not edit by hand -->`;
const end = (name) => `<!-- end of generated: ${name} -->`;

/** `text` with block `name` replaced by `body`; undefined when its markers are missing or out of order. */
function withBlock(text, name, body) {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from === -1 || to < from) return undefined;
  return `${text.slice(0, from)}${begin(name)}\n${body}\n${text.slice(to)}`;
}

const pages = new Map();
const problems = [];
for (const [file, name, generate] of GENERATED) {
  const path = join(dir, file);
  if (!pages.has(path)) pages.set(path, { before: readFileSync(path, 'utf8'), text: readFileSync(path, 'utf8') });
  const page = pages.get(path);
  const what = name ? `docs/${file} (block ${name})` : `docs/${file}`;
  const next = name ? withBlock(page.text, name, generate()) : generate();
  if (next === undefined) {
    problems.push(`${what}: its markers are missing (${begin(name)} … ${end(name)})`);
    continue;
  }
  if (next !== page.text) problems.push(`${what} is not what the code generates`);
  page.text = next;
}

if (check) {
  if (problems.length) {
    process.stderr.write(`${problems.join('\n')}\nrun npm run docs, then review the diff\n`);
    process.exit(1);
  }
} else {
  for (const [path, page] of pages) if (page.text !== page.before) writeFileSync(path, page.text);
  const missing = problems.filter((p) => p.includes('markers are missing'));
  if (missing.length) {
    process.stderr.write(`${missing.join('\n')}\n`);
    process.exit(1);
  }
  process.stderr.write(`docs: ${problems.length ? problems.length : 'no'} generated part(s) rewritten\n`);
}
