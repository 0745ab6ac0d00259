import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO } from '../helpers/env.js';

/**
 * Folders depend one way, from the edge inward (docs/architecture.md):
 *
 *   startup → cli → transport → server → session → registry → tools → toolkit → store → db → domain
 *
 * Each folder lists the folders it may import (a folder may always import itself). Inside store/, the
 * generations (legacy/, normalized/) sit on our own tables (own/) and the interface (the store/ root);
 * open/ and migrate/ pick a generation; nothing outside store/ reaches own/ or a generation. The server
 * reaches tool behaviour only through the registry or the Session (never tools/), and nothing but
 * startup/ imports startup/. Checked on every import of every source file, dynamic ones included.
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
  'store/open': ['store/legacy', 'store/normalized', 'store/own', 'store', 'db', 'domain'],
  'store/migrate': ['store/open', 'store/legacy', 'store/normalized', 'store/own', 'store', 'db', 'domain'],
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
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier)
      out.push((n.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      out.push(n.argument.literal.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
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

const sources = (): Record<string, string> =>
  Object.fromEntries(
    readdirSync(join(REPO, 'src'), { recursive: true })
      .map((f) => String(f).split('\\').join('/'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(REPO, 'src', f), 'utf8')]),
  );

test('every import points inward, along the listed edges', () => {
  const files = sources();
  assert.ok(Object.keys(files).length > 100, 'the file walk found the sources');
  assert.deepEqual(violations(files), []);
});

test('the listed edges form no circle', () => {
  const seen = new Set<string>();
  const visiting = new Set<string>();
  const visit = (f: string, path: string[]): void => {
    assert.ok(!visiting.has(f), `circle: ${[...path, f].join(' → ')}`);
    if (seen.has(f)) return;
    visiting.add(f);
    for (const to of MAY_IMPORT[f]!) visit(to, [...path, f]);
    visiting.delete(f);
    seen.add(f);
  };
  for (const f of Object.keys(MAY_IMPORT)) visit(f, []);
});

test('the check finds back-arrows, imports into store internals, and dynamic imports', () => {
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
 * The SDK is used through its public API: no `_`-prefixed member of anything (the SDK's privates are
 * `_`-prefixed), and no class extending one of its classes. One allowed exception, not the SDK's:
 * Node's own paused flag on an HTTP connection (transport/http.ts holdConnection says why).
 */
const PRIVATE_ALLOWED = new Set(['transport/http.ts _paused']);

test('no private member of the SDK is touched, and no SDK class is extended', () => {
  const found: string[] = [];
  for (const [path, source] of Object.entries(sources())) {
    const sf = ts.createSourceFile(path, source, ts.ScriptTarget.ES2022, true);
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyAccessExpression(n) || ts.isPropertySignature(n)) {
        const name = n.name.getText(sf);
        if (/^_[a-zA-Z]/.test(name) && !PRIVATE_ALLOWED.has(`${path} ${name}`)) found.push(`${path}: ${name}`);
      }
      if (ts.isClassDeclaration(n))
        for (const h of n.heritageClauses ?? [])
          for (const t of h.types)
            if (/^(Server|McpServer|Protocol|StdioServerTransport)$/.test(t.expression.getText(sf)))
              found.push(`${path}: class ${n.name?.text} extends ${t.expression.getText(sf)}`);
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  assert.deepEqual(found, []);
});
