// Bundles the server into ONE file, dist/ralph-mcp.js (+ source map): the artifact bin points at,
// that npm publishes and that the Docker image runs. better-sqlite3 stays external (a native addon
// must be installed for the machine it runs on). tsc still compiles src/ to dist/src for the tests'
// unit imports; the bundle is what every end-to-end test spawns.
import { build } from 'esbuild';
import { chmodSync, statSync, writeFileSync } from 'node:fs';

const outfile = new URL('../dist/ralph-mcp.js', import.meta.url).pathname;
const result = await build({
  entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  sourcemap: true,
  // Subcommands and transports are dynamic imports: esbuild keeps each module's top level in a lazy
  // initialiser, so a stdio session never evaluates the HTTP stack, yargs' help or doctor.
  // Bundled CommonJS dependencies may require() Node built-ins: give the ESM bundle a real require.
  banner: { js: "import { createRequire as __ralphCreateRequire } from 'node:module'; const require = __ralphCreateRequire(import.meta.url);" },
  legalComments: 'eof',
  logLevel: 'warning',
  metafile: true,
});
// BUNDLE_META=file.json: esbuild's metafile, to see what the bundle is made of.
if (process.env.BUNDLE_META) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile));
chmodSync(outfile, 0o755);
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
process.stderr.write(`bundle: dist/ralph-mcp.js ${kb(statSync(outfile).size)} (${Object.keys(result.metafile.inputs).length} modules)\n`);
