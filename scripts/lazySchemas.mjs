// The MCP SDK's types.js builds its ~170 zod schemas when it is evaluated: about 10 ms of every start,
// most of it for schemas a session never uses (tasks, sampling, elicitation, roots, client results...).
// lazySchemas() rewrites that one file, at build time, into a CommonJS module whose schemas are built the
// first time they are read (a getter that replaces itself with the schema): the same schemas, built from
// the same expressions, in the order a session first needs them. Everything else in the file (constants,
// functions, classes, the ErrorCode enum) stays as written and is evaluated at once.
//
// The rewrite is checked, not guessed: a top-level statement of a kind not handled below, or a local
// name that hides one of the file's schemas, fails the build rather than change what the file means.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

/** The files rewritten: the SDK's types.js, whatever path esbuild resolves it by. */
const TYPES = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](esm|cjs)[\\/]types\.js$/;

/** Names whose value the module defines at once: literals, functions, classes, aliases of those. */
function isEager(init, lazy) {
  let eager = true;
  const visit = (n) => {
    if (!eager) return;
    if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) return; // its body runs only when called
    if (ts.isIdentifier(n) && (n.text === 'z' || lazy.has(n.text))) eager = false;
    else ts.forEachChild(n, visit);
  };
  visit(init);
  return eager;
}

/** Whether `id` is a reference to a top-level name (not a property name, a declaration or a label). */
function isReference(id) {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p)) && p.name === id)
    return false;
  if (ts.isGetAccessor(p) || ts.isSetAccessor(p)) return p.name !== id;
  if (ts.isVariableDeclaration(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p)) return p.name !== id;
  if (ts.isParameter(p) || ts.isBindingElement(p)) return p.name !== id && p.propertyName !== id;
  if (ts.isNamespaceImport(p) || ts.isImportSpecifier(p) || ts.isImportClause(p)) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  return true;
}

/** The rewritten module's text. */
export function rewriteTypes(source, file = 'types.js', zodPath = 'zod/v4') {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const exported = (s) => s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
  /** Each lazy name, and where it is kept: `$` (the module's exports) or `_` (the file's own). */
  const lazy = new Map();
  const decls = []; // { name, init, lazy, exported } in file order
  const kept = []; // statements kept as written (minus `export`), in file order, with the names they export
  for (const s of sf.statements) {
    if (ts.isImportDeclaration(s)) {
      const clause = s.importClause;
      const ns = clause?.namedBindings;
      if (s.moduleSpecifier.text !== 'zod/v4' || !ns || !ts.isNamespaceImport(ns) || ns.name.text !== 'z')
        throw new Error(`lazySchemas: unexpected import in ${file}: ${s.getText(sf)}`);
      continue;
    }
    if (ts.isVariableStatement(s)) {
      const isConst = (s.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const d of s.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) throw new Error(`lazySchemas: destructuring in ${file}: ${d.getText(sf)}`);
        if (!d.initializer) {
          kept.push({ node: s, names: [d.name.text], exported: exported(s) });
          continue;
        }
        const isLazy = isConst && !isEager(d.initializer, lazy);
        if (isLazy) lazy.set(d.name.text, exported(s) ? '$' : '_');
        decls.push({ node: s, name: d.name.text, init: d.initializer, lazy: isLazy, exported: exported(s) });
      }
      continue;
    }
    if (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) {
      kept.push({ node: s, names: [s.name.text], exported: exported(s) });
      continue;
    }
    // `(function (ErrorCode) { ... })(ErrorCode || (ErrorCode = {}));`: the enum's body.
    if (ts.isExpressionStatement(s)) {
      kept.push({ node: s, names: [], exported: false });
      continue;
    }
    throw new Error(`lazySchemas: unexpected statement in ${file}: ${s.getText(sf).slice(0, 120)}`);
  }

  // A local name that hides a schema's would be rewritten wrongly: refuse.
  const checkScopes = (n, depth) => {
    if (depth > 0 && (ts.isParameter(n) || ts.isVariableDeclaration(n) || ts.isBindingElement(n))) {
      if (ts.isIdentifier(n.name) && (lazy.has(n.name.text) || n.name.text === 'z'))
        throw new Error(`lazySchemas: a local ${n.name.text} hides the top-level one in ${file}`);
    }
    const inner = ts.isFunctionLike(n) || ts.isBlock(n) || ts.isClassLike(n);
    ts.forEachChild(n, (c) => checkScopes(c, depth + (inner ? 1 : 0)));
  };
  checkScopes(sf, 0);

  /** A node's text with each reference to a lazy name read where it is kept, and zod loaded when first used. */
  const text = (node) => {
    const edits = [];
    const visit = (n) => {
      if (ts.isIdentifier(n) && n.text === 'z' && isReference(n)) {
        edits.push([n.getStart(sf), n.end, 'zod()']);
        return;
      }
      if (ts.isIdentifier(n) && lazy.has(n.text) && isReference(n)) {
        const read = `${lazy.get(n.text)}.${n.text}`;
        edits.push([n.getStart(sf), n.end, ts.isShorthandPropertyAssignment(n.parent) ? `${n.text}: ${read}` : read]);
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
    let out = source.slice(node.getStart(sf), node.end);
    const base = node.getStart(sf);
    for (const [from, to, repl] of edits.reverse()) out = out.slice(0, from - base) + repl + out.slice(to - base);
    return out;
  };

  const lines = [
    '"use strict";',
    // zod itself is evaluated at the first schema built, not with this module.
    `let zodModule;\nconst zod = () => (zodModule ??= require(${JSON.stringify(zodPath)}));`,
    'const $ = exports;',
    'const _ = {};',
    // A schema is made at its first read, and then is a plain value.
    'const lazy = (on, name, make) => Object.defineProperty(on, name, { configurable: true, enumerable: true,',
    '  get() { const value = make(); Object.defineProperty(on, name, { value, enumerable: true }); return value; } });',
  ];
  const exports = [];
  const byNode = new Map(); // statement -> its kept entries, to keep file order
  for (const k of kept) byNode.set(k.node, k);
  const emitted = new Set();
  for (const s of sf.statements) {
    if (ts.isImportDeclaration(s) || emitted.has(s)) continue;
    emitted.add(s);
    const k = byNode.get(s);
    if (k) {
      let t = text(s);
      if (k.exported) {
        t = t.replace(/^export\s+/, '');
        exports.push(...k.names);
      }
      lines.push(t);
      continue;
    }
    for (const d of decls.filter((x) => x.node === s)) {
      if (d.lazy) {
        lines.push(`lazy(${lazy.get(d.name)}, ${JSON.stringify(d.name)}, () => (${text(d.init)}));`);
      } else {
        lines.push(`const ${d.name} = ${text(d.init)};`);
        if (d.exported) exports.push(d.name);
      }
    }
  }
  for (const name of exports) lines.push(`$.${name} = ${name};`);
  return lines.join('\n');
}

/**
 * Where `path` resolves from a module (esbuild's build.resolve, asynchronous). Bun's plugin API has no
 * build.resolve (oven-sh/bun#2771) and runs onResolve synchronously: there Bun.resolveSync, which
 * resolves an import as Bun's bundler does (the ES module entries of a package's exports).
 */
function resolvePath(b, path, { kind, importer, resolveDir, pluginData }) {
  if (typeof Bun !== 'undefined') return Bun.resolveSync(path, resolveDir ?? dirname(importer));
  return b.resolve(path, { kind, importer, resolveDir, pluginData }).then((r) => r.path);
}

/** `f(value)`, for a value or a promise of one (the two bundlers above). */
const then = (value, f) => (value instanceof Promise ? value.then(f) : f(value));

/**
 * zod's `z` namespace, the module both `import { z } from 'zod'` and the SDK's `import * as z from
 * 'zod/v4'` reach: required directly, so the bundle need not also build those index modules' namespace
 * objects (~260 getters each, made when the bundle is evaluated).
 */
function zodNamespace(b, resolveDir) {
  return then(resolvePath(b, 'zod', { kind: 'import-statement', resolveDir, pluginData: 'lazy-zod' }), (index) => {
    const z = join(dirname(index), 'v4', 'classic', 'external.js');
    if (!readFileSync(index, 'utf8').includes('import * as z from "./v4/classic/external.js"'))
      throw new Error(`lazySchemas: ${index} no longer takes its z from ${z}; look again at how zod is laid out`);
    return z;
  });
}

/** The bundler plugin (esbuild's or Bun's): the SDK's types.js, rewritten as above. */
export function lazySchemas() {
  return {
    name: 'lazy-sdk-schemas',
    setup(b) {
      // Its own namespace: in the SDK's folder ("type": "module") esbuild would read the CommonJS as an ES module.
      b.onResolve({ filter: /types\.js$/ }, (args) => {
        if (args.namespace === 'lazy-sdk-schemas' || args.pluginData === 'lazy-sdk-schemas') return undefined;
        const resolved = resolvePath(b, args.path, { ...args, pluginData: 'lazy-sdk-schemas' });
        return then(resolved, (path) => (TYPES.test(path) ? { path, namespace: 'lazy-sdk-schemas' } : undefined));
      });
      b.onLoad({ filter: /.*/, namespace: 'lazy-sdk-schemas' }, async (args) => {
        const resolveDir = dirname(args.path);
        // The ES module build of zod, the one every other module imports (a require would pick its CommonJS copy).
        const zod = await zodNamespace(b, resolveDir);
        return {
          contents: rewriteTypes(readFileSync(args.path, 'utf8'), args.path, zod),
          loader: 'js',
          resolveDir,
        };
      });
    },
  };
}

/**
 * Our modules' `import { z } from 'zod'`, in the bundle: a stand-in whose first use evaluates zod (the
 * same ES module every other importer gets). Every schema of ours is made inside a function (tools build
 * theirs at a session's first call, listings come built: scripts/serverBuild.mjs), so a session's start
 * evaluates none of zod's ~150 modules. Only property reads reach zod through it (`z.object(...)`,
 * `z.string()`, ...), as they do in src/; types are erased. The stand-in's path is zod's module's with
 * `.lazy-zod` added (Bun keys a bundle's modules by path alone, whatever their namespace).
 */
export function lazyZod() {
  const STAND_IN = '.lazy-zod';
  return {
    name: 'lazy-zod',
    setup(b) {
      b.onResolve({ filter: /^zod$/ }, (args) => {
        if (
          args.pluginData === 'lazy-zod' ||
          !/[\\/]src[\\/]/.test(args.importer) ||
          /node_modules/.test(args.importer)
        )
          return undefined;
        const resolveDir = args.resolveDir ?? dirname(args.importer);
        return then(zodNamespace(b, resolveDir), (real) => ({ path: `${real}${STAND_IN}`, namespace: 'lazy-zod' }));
      });
      b.onLoad({ filter: /.*/, namespace: 'lazy-zod' }, (args) => ({
        contents: `let real;
const load = () => (real ??= require(${JSON.stringify(args.path.slice(0, -STAND_IN.length))}));
export const z = new Proxy(Object.create(null), {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), key);
    return d && { ...d, configurable: true };
  },
});
`,
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}
