// Bundles the server into ONE file, dist/ralph-mcp.cjs (+ source map), and its launcher
// dist/ralph-mcp.js (what bin points at, npm publishes and the Docker image runs), which compiles the
// bundle through V8's code cache. better-sqlite3's JavaScript is bundled too; its compiled addon stays in
// the installed package (built for the machine it runs on; src/db/sqlite.ts finds it). tsc still
// compiles src/ to dist/src for the tests'
// unit imports; the bundle is what every end-to-end test spawns.
import { build } from 'esbuild';
import { serverBuildOptions } from './serverBuild.mjs';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';

const payload = new URL('../dist/ralph-mcp.cjs', import.meta.url).pathname;
const launcher = new URL('../dist/ralph-mcp.js', import.meta.url).pathname;
// The server: CommonJS, so that the launcher can compile it with V8's code cache (src/launcher.ts).
// import.meta.url (the package root is found from it) is the payload's own file URL. The file is one
// function expression, the module wrapper Node would add written in already: the launcher compiles the
// string it read, with no wrapped copy of the whole bundle to keep in memory beside it.
const options = await serverBuildOptions();
const result = await build({
  ...options,
  entryPoints: [new URL('../src/startup/cli.ts', import.meta.url).pathname],
  outfile: payload,
  external: [],
  banner: { js: `(function (exports, require, module, __filename, __dirname) {${options.banner.js}` },
  footer: { js: '})' },
});
{
  const bytes = readFileSync(payload);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at !== -1)
    throw new Error(
      `dist/ralph-mcp.cjs is not ASCII at byte ${at} (${JSON.stringify(bytes.subarray(Math.max(0, at - 40), at + 40).toString('utf8'))}): write the character as an escape in the source; the launcher reads the bundle as ASCII`,
    );
}
// The command users run: a few lines that load the payload through the code cache. CommonJS (dist/ is
// a CommonJS folder: dist/package.json below), because an ES module entry makes Node start its ES
// module loader first: 7 ms of every start (88 -> 81 ms to the first tools/list reply).
await build({
  entryPoints: [new URL('../src/startup/launcher.ts', import.meta.url).pathname],
  outfile: launcher,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  define: { 'import.meta.url': '__ralph_launcher_url' },
  banner: { js: "#!/usr/bin/env node\nvar __ralph_launcher_url = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
// The package is "type": "module"; dist/ itself holds CommonJS (the launcher above; the bundle is .cjs
// anyway), and tsc's output below it stays ES modules.
const dist = new URL('../dist/', import.meta.url).pathname;
writeFileSync(`${dist}package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const dir of ['src', 'test', 'scripts'])
  if (existsSync(`${dist}${dir}`))
    writeFileSync(`${dist}${dir}/package.json`, `${JSON.stringify({ type: 'module' })}\n`);
// BUNDLE_META=file.json: esbuild's metafile, to see what the bundle is made of.
if (process.env.BUNDLE_META) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile));
chmodSync(launcher, 0o755);
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
process.stderr.write(
  `bundle: dist/ralph-mcp.cjs ${kb(statSync(payload).size)} (${Object.keys(result.metafile.inputs).length} modules), launcher dist/ralph-mcp.js ${kb(statSync(launcher).size)}\n`,
);
