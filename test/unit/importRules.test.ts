import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO } from '../helpers/env.js';

// Rules every source file keeps: imports point inward, SQL stays in the store, stdout is written only
// where marked, the SDK is used through its public API. SOURCES: every file, by its path under src/.
const SOURCES: Record<string, string> = Object.fromEntries(
  readdirSync(join(REPO, 'src'), { recursive: true })
    .map((f) => String(f).split('\\').join('/'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => [f, readFileSync(join(REPO, 'src', f), 'utf8')]),
);

/** Calls `visit` on every node of a source text, depth first. */
function eachNode(file: string, source: string, visit: (n: ts.Node, sf: ts.SourceFile) => void): void {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const walk = (n: ts.Node): void => {
    visit(n, sf);
    ts.forEachChild(n, walk);
  };
  walk(sf);
}

/** "path:line: text" for every line of these files that `bad` picks. */
function badLines(files: Record<string, string>, bad: (line: string) => boolean): string[] {
  return Object.entries(files).flatMap(([path, text]) =>
    text.split('\n').flatMap((line, i) => (bad(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
  );
}

/**
 * Folders depend one way, from the edge inward (docs/architecture.md): startup → cli → transport → server
 * → session → registry → tools → toolkit → store → db → domain; each may import itself and those listed.
 * Inside store/, the generations (legacy/, normalized/) sit on our own tables (own/) and the store/ root;
 * open/ and migrate/ pick a generation; nothing outside store/ reaches own/ or a generation. The server
 * reaches tools only through the registry or the Session. Checked on every import, dynamic ones included.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  startup: ['cli', 'transport', 'server', 'session', 'registry', 'store', 'store/open', 'db', 'domain'],
  cli: ['transport', 'server', 'session', 'registry', 'store', 'store/open', 'store/migrate', 'db', 'domain'],
  transport: ['server', 'session', 'store', 'domain'],
  server: ['session', 'registry', 'toolkit', 'store', 'db', 'domain'],
  session: ['registry', 'toolkit', 'store', 'store/open', 'db', 'domain'],
  registry: ['tools', 'toolkit', 'store', 'domain'],
  tools: ['toolkit', 'store', 'domain'],
  toolkit: ['store', 'domain'],
  'store/migrate': ['store/open', 'store/legacy', 'store/normalized', 'store/own', 'store', 'db', 'domain'],
  'store/open': ['store/legacy', 'store/normalized', 'store/own', 'store', 'db', 'domain'],
  'store/legacy': ['store/own', 'store', 'db', 'domain'],
  'store/normalized': ['store/own', 'store', 'db', 'domain'],
  'store/own': ['store', 'db', 'domain'],
  store: ['db', 'domain'],
  db: ['domain'],
  domain: [],
};
const FOLDERS = Object.keys(MAY_IMPORT).sort((a, b) => b.length - a.length);

/** The folder a source path (relative to src/) belongs to: the longest listed prefix. */
export function folderOf(path: string): string | undefined {
  return FOLDERS.find((f) => path === f || path.startsWith(`${f}/`));
}

/** Every relative import of a file: static, re-exports, import types and import() calls. */
export function importsOf(file: string, source: string): string[] {
  const out: string[] = [];
  eachNode(file, source, (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier)
      out.push((n.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      out.push(n.argument.literal.text);
  });
  return out.filter((s) => s.startsWith('.'));
}

/** The rule each import of these files breaks, as "from → to (file: specifier)". */
export function violations(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [path, source] of Object.entries(files)) {
    const from = folderOf(path);
    if (from === undefined) {
      found.push(`${path}: in no listed folder`);
      continue;
    }
    for (const spec of importsOf(path, source)) {
      const target = join(path, '..', spec).split('\\').join('/');
      if (target.startsWith('..')) continue; // outside src/ (package.json): not a layer
      const to = folderOf(target);
      if (to === undefined) found.push(`${path}: imports ${spec}, in no listed folder`);
      else if (to !== from && !MAY_IMPORT[from]!.includes(to)) found.push(`${from} → ${to} (${path}: ${spec})`);
    }
  }
  return found;
}

test('the listed edges form no circle: each folder may import only folders listed after it', () => {
  const order = Object.keys(MAY_IMPORT);
  const back = order.flatMap((f) =>
    MAY_IMPORT[f]!.filter((to) => order.indexOf(to) <= order.indexOf(f)).map((to) => `${f} → ${to}`),
  );
  assert.deepEqual(back, []);
});

test('every import points inward; the check finds back-arrows, imports into store internals, dynamic ones', () => {
  assert.ok(Object.keys(SOURCES).length > 100, 'the file walk found the sources');
  assert.deepEqual(violations(SOURCES), []);
  const probe = {
    'store/json.ts': "import { x } from '../tools/tasks.js';",
    'tools/tasks.ts': "import type { Claim } from '../store/own/claims.js';",
    'server/resources.ts': "const t = await import('../tools/tasks.js');",
    'session/plan.ts': "export { y } from '../startup/v8Flags.js';",
    'store/own/schema.ts': "import { rebuildFacets } from '../normalized/facets.js';",
    'tools/search.ts': "import { SEARCH_BOUNDS } from '../store/searchBounds.js';",
  };
  assert.deepEqual(violations(probe), [
    'store → tools (store/json.ts: ../tools/tasks.js)',
    'tools → store/own (tools/tasks.ts: ../store/own/claims.js)',
    'server → tools (server/resources.ts: ../tools/tasks.js)',
    'session → startup (session/plan.ts: ../startup/v8Flags.js)',
    'store/own → store/normalized (store/own/schema.ts: ../normalized/facets.js)',
  ]);
});

/**
 * All SQL lives in src/store/ (one implementation per schema generation, and our own tables) and src/db/,
 * so a second generation cannot be forgotten in some corner. SQL as our code writes it: keywords in capitals.
 */
const SQL =
  /\b(?:SELECT\s[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(?:TABLE|INDEX|TRIGGER|VIEW)\b|ALTER\s+TABLE\b|DROP\s+(?:TABLE|INDEX)\b|PRAGMA\s+\w+)/;

/** "file:line: text" for every literal holding SQL in this source text. */
export function sqlLiterals(file: string, source: string): string[] {
  const found: string[] = [];
  eachNode(file, source, (n, sf) => {
    if (ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      const line = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      if (SQL.test(n.text)) found.push(`${file}:${line}: ${n.text.replace(/\s+/g, ' ').slice(0, 100)}`);
    }
  });
  return found;
}

test('no SQL outside src/store/ and src/db/; the check finds SQL in strings and templates, not in prose', () => {
  const files = Object.keys(SOURCES);
  const outside = files.filter((f) => !f.startsWith('store/') && !f.startsWith('db/'));
  assert.ok(outside.length > 30, `only ${outside.length} files outside the store: the file walk is broken`);
  assert.ok(
    files.some((f) => f.startsWith('store/legacy/')) && files.some((f) => f.startsWith('store/normalized/')),
    'both generations live in src/store/',
  );
  const offenders = outside.flatMap((f) => sqlLiterals(`src/${f}`, SOURCES[f]!));
  assert.deepEqual(offenders, [], 'SQL outside the storage boundary: move it behind RalphStore (src/store/store.ts)');
  const probe = [
    "const a = 'SELECT id FROM tasks WHERE id = ?';",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the scanner, not a template
    'const b = `UPDATE runtime_tasks SET status = ${s} WHERE id = ?`;',
    'db.run("INSERT OR IGNORE INTO ralph_mcp_meta (key) VALUES (1)");',
    'const c = `DELETE FROM task_comments WHERE task_id = ?`;',
    "raw.pragma('PRAGMA foreign_keys = ON');",
    "const d = 'select the feature from the list';",
    "const e = 'Update the task, then set its status';",
    "const f = 'create a table of contents';",
  ].join('\n');
  const lines = sqlLiterals('probe.ts', probe).map((x) => x.split(':')[1]);
  assert.deepEqual(lines, ['1', '2', '3', '4', '5']);
});

/**
 * stdout is the protocol: while a session is served nothing else may write there. The few deliberate
 * writes (the subcommands' output, a refused launch's one response, the shutdown flush) are each marked
 * `// stdout-ok: why` on their line; the transport writes through the stream it is given.
 */
const WRITER = /\bprocess\.stdout\.write\(|\bconsole\.(log|info|debug|dir|table|trace)\(/;
export const unmarkedWrites = (files: Record<string, string>): string[] =>
  badLines(files, (line) => WRITER.test(line) && !/\/\/ stdout-ok: \S/.test(line));

test('every stdout write in src/ is a marked, deliberate one; the check finds unmarked ones', () => {
  assert.deepEqual(unmarkedWrites(SOURCES), []);
  const probe = [
    "process.stdout.write('x');",
    "console.log('debug');",
    "process.stdout.write('', done); // stdout-ok: waits for the flush",
    "process.stderr.write('fine');",
    "console.error('stderr is fine');",
  ];
  assert.deepEqual(unmarkedWrites({ 'a.ts': probe.join('\n') }), [
    "a.ts:1: process.stdout.write('x');",
    "a.ts:2: console.log('debug');",
  ]);
});

/**
 * The SDK is used through its public API: no `_`-prefixed member of anything (the SDK's privates are
 * `_`-prefixed), and no class extending one of its classes. One allowed exception, not the SDK's:
 * Node's own paused flag on an HTTP connection (transport/http.ts holdConnection says why).
 */
const PRIVATE_ALLOWED = new Set(['transport/http.ts _paused']);

test('no private member of the SDK is touched, and no SDK class is extended', () => {
  const found: string[] = [];
  for (const [path, source] of Object.entries(SOURCES))
    eachNode(path, source, (n, sf) => {
      if (ts.isPropertyAccessExpression(n) || ts.isPropertySignature(n)) {
        const name = n.name.getText(sf);
        if (/^_[a-zA-Z]/.test(name) && !PRIVATE_ALLOWED.has(`${path} ${name}`)) found.push(`${path}: ${name}`);
      }
      if (ts.isClassDeclaration(n))
        for (const h of n.heritageClauses ?? [])
          for (const t of h.types)
            if (/^(Server|McpServer|Protocol|StdioServerTransport)$/.test(t.expression.getText(sf)))
              found.push(`${path}: class ${n.name?.text} extends ${t.expression.getText(sf)}`);
    });
  assert.deepEqual(found, []);
});
