// Bun's bundler options for the two Bun artifacts, run under Bun (Bun.build): the bytecode bundle the
// launcher loads under Bun (scripts/bundle-bun.mjs) and the Bun single executable
// (scripts/build-exe-bun.mjs). The same server as the Node bundle (scripts/serverBuild.mjs: its build
// tables and start-up trims), compiled by Bun to JavaScriptCore bytecode at build time, so that a start
// decodes compiled code instead of parsing a megabyte of JavaScript.
//
// CommonJS, like the Node bundle: Bun's ES module output imports every Node built-in a module of the
// bundle names at its top (node:http, node:tls, … for a stdio session that uses none of them), where a
// CommonJS bundle requires each only when the module that needs it is first used; and Bun writes
// bytecode for a CommonJS bundle with or without --compile. import.meta has no meaning in CommonJS: the
// server's import.meta.url is the file's own URL (serverBuild.mjs's banner), and yargs' one
// import.meta.resolve (for `extends` in a config file, which ralph-mcp never passes) is require.resolve.
import { dirname } from 'node:path';
import { serverBuildOptions } from './serverBuild.mjs';

/** The JIT policy a Bun start runs under until it serves (src/startup/v8Flags.ts, from tsc's output). */
export const { BUN_STARTUP_JIT_POLICY: STARTUP_JIT_POLICY } = await import('../dist/src/startup/v8Flags.js');

/**
 * better-sqlite3 is Node's driver: under Bun the server opens SQLite through bun:sqlite (src/db/sqlite.ts),
 * so its JavaScript, which would look for a compiled Node addon, is left out.
 */
function withoutBetterSqlite() {
  const stub =
    "export default class Database { constructor() { throw new Error('ralph-mcp under Bun opens SQLite through bun:sqlite: better-sqlite3 is not in this build'); } }";
  return {
    name: 'without-better-sqlite3',
    setup(b) {
      b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: 'better-sqlite3', namespace: 'bun-stub' }));
      b.onLoad({ filter: /^better-sqlite3$/, namespace: 'bun-stub' }, () => ({ contents: stub, loader: 'js' }));
    },
  };
}

/**
 * serverBuild.mjs leaves node:assert (sonic-boom's one check) and node:worker_threads (pino asks whether
 * it runs on the main thread) out of the Node bundle by resolving them to small modules; Bun resolves Node's
 * built-in modules before any plugin sees them, so here the lines that require them are rewritten in their
 * files instead (a changed line fails the build rather than loading the module again).
 */
function builtinsLeftOut() {
  const edits = [
    {
      file: /[\\/]sonic-boom[\\/]index\.js$/,
      from: "const assert = require('assert')",
      to: 'const assert = (value, message) => { if (!value) throw new Error(message) }',
    },
    {
      file: /[\\/]pino[\\/]lib[\\/]tools\.js$/,
      from: "const { isMainThread } = require('worker_threads')",
      to: 'const isMainThread = true',
    },
    // pino traces each line's JSON through node:diagnostics_channel when someone subscribes in the process,
    // which no one does in ours; Bun compiles that module from source at each `bun dist/ralph-mcp.js`.
    {
      file: /[\\/]pino[\\/]lib[\\/]tools\.js$/,
      from: "const diagChan = require('node:diagnostics_channel')",
      to: 'const diagChan = { tracingChannel: () => ({ hasSubscribers: false }) }',
    },
  ];
  return {
    name: 'builtins-left-out',
    setup(b) {
      // One loader per file (the first that matches a file is the one Bun runs).
      for (const source of new Set(edits.map((e) => e.file.source)))
        b.onLoad({ filter: new RegExp(source) }, async (args) => {
          let text = await Bun.file(args.path).text();
          for (const { from, to } of edits.filter((e) => e.file.source === source)) {
            if (!text.includes(from)) throw new Error(`${args.path} no longer holds ${JSON.stringify(from)}`);
            text = text.replace(from, to);
          }
          return { contents: text, loader: 'js' };
        });
    },
  };
}

/**
 * Our `import pino from 'pino'` (src/server/log.ts), in Bun's builds: a stand-in that evaluates pino at its
 * first use, which a start that writes no log line never makes (src/server/log.ts makes the logger then).
 * Bun evaluates pino's ~15 modules and node:os in about 1.5 ms; the Node bundle keeps pino as it is (its single
 * executable's start-up snapshot holds pino evaluated). The stand-in's path is pino's with `.lazy-pino`
 * added: Bun keys a bundle's modules by path, whatever their namespace.
 */
function lazyPino() {
  const STAND_IN = '.lazy-pino';
  return {
    name: 'lazy-pino',
    setup(b) {
      b.onResolve({ filter: /^pino$/ }, (args) => {
        if (!/[\\/]src[\\/]/.test(args.importer) || /node_modules/.test(args.importer)) return undefined;
        return { path: `${Bun.resolveSync('pino', dirname(args.importer))}${STAND_IN}`, namespace: 'lazy-pino' };
      });
      b.onLoad({ filter: /.*/, namespace: 'lazy-pino' }, (args) => ({
        contents: `let real;
const load = () => (real ??= require(${JSON.stringify(args.path.slice(0, -STAND_IN.length))}));
export default new Proxy(function pino() {}, {
  apply: (_, self, args) => Reflect.apply(load(), self, args),
  get: (_, key) => load()[key],
});
`,
        loader: 'js',
      }));
    },
  };
}

/** Bun.build options for `entry` (`define`: more build-time constants, as serverBuildOptions takes them). */
export async function bunBuildOptions(entry, define = {}) {
  const node = await serverBuildOptions(define);
  // The two large tables as JSON text (src/startup/buildTables.ts says why).
  const { __RALPH_LISTINGS__: listings, __RALPH_EXPECTED_SCHEMA__: expected, ...rest } = node.define;
  const tables = {
    __RALPH_LISTINGS_JSON__: JSON.stringify(listings),
    __RALPH_EXPECTED_SCHEMA_JSON__: JSON.stringify(expected),
  };
  return {
    entrypoints: [entry],
    target: 'bun',
    format: 'cjs',
    bytecode: true,
    minify: true,
    define: { ...rest, ...tables, 'import.meta.resolve': 'require.resolve' },
    banner: node.banner.js,
    plugins: [...node.plugins, withoutBetterSqlite(), builtinsLeftOut(), lazyPino()],
  };
}

/** Bun.build, failing with its messages. */
export async function bunBuild(options) {
  const result = await Bun.build(options);
  if (!result.success) throw new AggregateError(result.logs, `Bun.build failed:\n${result.logs.join('\n')}`);
  return result;
}
