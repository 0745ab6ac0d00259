// The esbuild options of the server bundle, shared by the npm bundle (scripts/bundle.mjs) and the single
// executable (scripts/build-exe.mjs), which differ only in entry, output and what stays external; Bun's
// builds take their constants and plugins too (scripts/bunBuild.mjs).
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Modules every session would evaluate at startup for nothing (about 35 ms together):
 * - the SDK Server's ajv-based validator, used only to check answers to elicitation forms, which
 *   ralph-mcp checks with its own (src/server/formValidator.ts, given to the Server) (ajv itself stays in
 *   the bundle, loaded lazily for .ralph/mcp/recipes.json);
 * - zod's table of ~40 locales, of which only English is ever configured;
 * - what pino loads for logging from worker threads (node:worker_threads, its thread-stream
 *   transport) and node:assert, for one check in sonic-boom (about 5 ms of Node's own modules): src/server/log.ts
 *   writes synchronously (pino.destination with sync: true) from the main thread and never calls
 *   pino.transport().
 * Each is replaced by a small module with the same exports that the code paths we use need.
 */
import { lazySchemas, lazyZod } from './lazySchemas.mjs';

function startupTrim() {
  const stubs = {
    ajvProvider:
      "export class AjvJsonSchemaValidator { getValidator() { throw new Error('ralph-mcp checks elicitation answers with src/server/formValidator.ts: ajv is not bundled here'); } }",
    // pino asks only whether it runs on the main thread (to flush an asynchronous destination at exit).
    workerThreads: 'module.exports = { isMainThread: true };',
    threadStream:
      "module.exports = class ThreadStream { constructor() { throw new Error('ralph-mcp logs through pino.destination: pino transports are not bundled'); } };",
    assert: 'module.exports = function assert(value, message) { if (!value) throw new Error(message); };',
  };
  /** Which importer gets which stub (nothing else is touched). */
  const scoped = [
    { spec: /^worker_threads$/, importer: /[\\/]pino[\\/]lib[\\/]tools\.js$/, stub: 'workerThreads' },
    { spec: /^thread-stream$/, importer: /[\\/]pino[\\/]lib[\\/]transport\.js$/, stub: 'threadStream' },
    { spec: /^assert$/, importer: /[\\/]sonic-boom[\\/]index\.js$/, stub: 'assert' },
  ];
  return {
    name: 'startup-trim',
    setup(b) {
      b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
        args.importer.includes('@modelcontextprotocol/sdk/dist/esm/server/')
          ? { path: 'ajv-provider', namespace: 'stub' }
          : undefined,
      );
      b.onLoad({ filter: /^ajv-provider$/, namespace: 'stub' }, () => ({ contents: stubs.ajvProvider, loader: 'js' }));
      for (const { spec, importer, stub } of scoped)
        b.onResolve({ filter: spec }, (args) =>
          importer.test(args.importer) ? { path: stub, namespace: 'stub' } : undefined,
        );
      b.onLoad({ filter: /^(workerThreads|threadStream|assert)$/, namespace: 'stub' }, (args) => ({
        contents: stubs[args.path],
        loader: 'js',
      }));
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /\/zod\/v4\/(classic|core)\//.test(args.importer)
          ? {
              path: new URL('../node_modules/zod/v4/locales/en.js', import.meta.url).pathname.replace(
                'en.js',
                'index.en-only.js',
              ),
              namespace: 'zod-locales',
            }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path.replace('index.en-only.js', 'en.js'))};`,
        loader: 'js',
        resolveDir: args.path.replace(/\/[^/]*$/, ''),
      }));
    },
  };
}

/**
 * Every tool's input and output JSON Schema, computed once at build time from tsc's output (npm run
 * build runs tsc first) instead of by zod at each session's first tools/list (src/session/listing.ts); the narrowed inputs of the built-in recipes too.
 * Written in as JSON texts, each parsed when first used.
 */
async function prebuiltListings() {
  const { REGISTRY } = await import('../dist/src/registry/registry.js');
  const { RECIPES } = await import('../dist/src/registry/recipes.js');
  const { buildListings } = await import('../dist/src/session/listing.js');
  const built = buildListings(REGISTRY, RECIPES);
  // Each schema as its JSON text, parsed when a session first lists it (src/startup/buildTables.ts).
  const text = (schema) => JSON.stringify(schema);
  return {
    tools: Object.fromEntries(
      Object.entries(built.tools).map(([name, t]) => [name, { input: text(t.input), output: text(t.output) }]),
    ),
    narrowed: Object.fromEntries(Object.entries(built.narrowed).map(([key, s]) => [key, text(s)])),
  };
}

/**
 * Both generations' expected tables, columns, CHECK lists and CREATE statements, computed once at build time from
 * schema/ralph-<generation>.sql instead of at each start (src/store/schema.ts).
 */
async function expectedSchemas() {
  const { expectedData } = await import('../dist/src/store/schema.js');
  const { GENERATIONS } = await import('../dist/src/store/records.js');
  return Object.fromEntries(GENERATIONS.map((g) => [g, expectedData(g)]));
}

/** What the server reads from its package at run time, embedded as text in a single executable. */
export function embeddedFiles() {
  const at = (path) => new URL(`../${path}`, import.meta.url);
  const files = { 'package.json': readFileSync(at('package.json'), 'utf8') };
  for (const name of readdirSync(at('schema'))) files[`schema/${name}`] = readFileSync(at(`schema/${name}`), 'utf8');
  return files;
}

/** `define` adds build-time constants (the single executable's embedded files). */
export async function serverBuildOptions(define = {}) {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true,
    // Subcommands and transports are dynamic imports: esbuild keeps each module's top level in a lazy
    // initialiser, so a stdio session never evaluates the HTTP stack, yargs or doctor.
    define: {
      'import.meta.url': '__ralph_import_meta_url',
      __RALPH_LISTINGS__: JSON.stringify(await prebuiltListings()),
      __RALPH_EXPECTED_SCHEMA__: JSON.stringify(await expectedSchemas()),
      ...define,
    },
    banner: { js: "var __ralph_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
    legalComments: 'eof',
    // Minified (the source map keeps the names and lines): 0.9 MB instead of 1.35 to read at each
    // start, and to keep in memory while the server runs (V8 holds a script's source for as long as its
    // code lives: about 2 MB less RSS a session). ASCII only (esbuild escapes strings; comments are the
    // rest), which the launcher reads as such, without decoding UTF-8 (scripts/bundle.mjs checks).
    // Nothing here reads a function's or class's name at run time (an error's name is set explicitly).
    minify: true,
    logLevel: 'warning',
    metafile: true,
    // Bun's builds (scripts/bunBuild.mjs) take the same plugins (scripts/lazySchemas.mjs resolves under both).
    plugins: [startupTrim(), lazySchemas(), lazyZod()],
  };
}
