// Bundles the server into ONE file, dist/ralph-mcp.cjs (+ source map), and its launcher
// dist/ralph-mcp.js (what bin points at, npm publishes and the Docker image runs), which compiles the
// bundle through V8's code cache. better-sqlite3 stays external (a native addon must be installed for
// the machine it runs on). tsc still compiles src/ to dist/src for the tests'
// unit imports; the bundle is what every end-to-end test spawns.
import { build } from 'esbuild';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

/**
 * Two modules every session would evaluate at startup for nothing (about 30 ms together):
 * - the SDK Server's ajv-based validator, used only to check elicitation forms, which ralph-mcp never
 *   sends (ajv itself stays in the bundle, loaded lazily for .ralph/mcp/recipes.json);
 * - zod's table of ~40 locales, of which only English is ever configured.
 * Each is replaced by a small module with the same exports that the code paths we use need.
 */
function startupTrim() {
  const stubs = {
    ajvProvider:
      "export class AjvJsonSchemaValidator { getValidator() { throw new Error('ralph-mcp sends no elicitation requests: no JSON Schema validator is bundled'); } }",
  };
  return {
    name: 'startup-trim',
    setup(b) {
      b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
        args.importer.includes('@modelcontextprotocol/sdk/dist/esm/server/') ? { path: 'ajv-provider', namespace: 'stub' } : undefined,
      );
      b.onLoad({ filter: /^ajv-provider$/, namespace: 'stub' }, () => ({ contents: stubs.ajvProvider, loader: 'js' }));
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /\/zod\/v4\/(classic|core)\//.test(args.importer) ? { path: new URL('../node_modules/zod/v4/locales/en.js', import.meta.url).pathname.replace('en.js', 'index.en-only.js'), namespace: 'zod-locales' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path.replace('index.en-only.js', 'en.js'))};`,
        loader: 'js',
        resolveDir: args.path.replace(/\/[^/]*$/, ''),
      }));
    },
  };
}

// Every tool's input and output JSON Schema, computed once here from tsc's output (npm run build runs
// tsc first) instead of by zod at each session's first tools/list (src/server/toolListing.ts).
const { REGISTRY } = await import('../dist/src/registry/registry.js');
const { prebuildListings } = await import('../dist/src/server/toolListing.js');
const listings = prebuildListings(REGISTRY);

const payload = new URL('../dist/ralph-mcp.cjs', import.meta.url).pathname;
const launcher = new URL('../dist/ralph-mcp.js', import.meta.url).pathname;
// The server: CommonJS, so that the launcher can compile it with V8's code cache (src/launcher.ts).
// import.meta.url (the package root is found from it) is the payload's own file URL.
const result = await build({
  entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
  outfile: payload,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['better-sqlite3'],
  sourcemap: true,
  // Subcommands and transports are dynamic imports: esbuild keeps each module's top level in a lazy
  // initialiser, so a stdio session never evaluates the HTTP stack, yargs or doctor.
  define: { 'import.meta.url': '__ralph_import_meta_url', __RALPH_LISTINGS__: JSON.stringify(listings) },
  banner: { js: "var __ralph_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'eof',
  // Comments and indentation out (the source map keeps the lines): a smaller file to read at each start,
  // and one that is ASCII only (esbuild escapes strings; comments are the rest), which the launcher
  // reads as such, without decoding UTF-8 (checked below).
  minifyWhitespace: true,
  logLevel: 'warning',
  metafile: true,
  plugins: [startupTrim()],
});
{
  const bytes = readFileSync(payload);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at !== -1) throw new Error(`dist/ralph-mcp.cjs is not ASCII at byte ${at} (${JSON.stringify(bytes.subarray(Math.max(0, at - 40), at + 40).toString('utf8'))}): write the character as an escape in the source; the launcher reads the bundle as ASCII`);
}
// The command users run: a few lines that load the payload through the code cache.
await build({
  entryPoints: [new URL('../src/launcher.ts', import.meta.url).pathname],
  outfile: launcher,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
// BUNDLE_META=file.json: esbuild's metafile, to see what the bundle is made of.
if (process.env.BUNDLE_META) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile));
chmodSync(launcher, 0o755);
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
process.stderr.write(`bundle: dist/ralph-mcp.cjs ${kb(statSync(payload).size)} (${Object.keys(result.metafile.inputs).length} modules), launcher dist/ralph-mcp.js ${kb(statSync(launcher).size)}\n`);
