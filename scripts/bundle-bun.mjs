// Part of `npm run build` (run by Bun): dist/ralph-mcp.bun.js and its bytecode, dist/ralph-mcp.bun.js.jsc,
// what the launcher loads when Bun runs it (`bun dist/ralph-mcp.js`; src/startup/launcher.ts). The npm
// bundle is compiled by V8 through the launcher's code cache, which Bun (JavaScriptCore) cannot use; this
// copy of the same server is compiled by Bun at build time instead. Bun uses the bytecode when it was
// made by the same Bun version, and compiles the file itself otherwise.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bunBuild, bunBuildOptions } from './bunBuild.mjs';

if (typeof Bun === 'undefined') throw new Error('scripts/bundle-bun.mjs runs under Bun');
const dist = new URL('../dist/', import.meta.url).pathname;
for (const f of ['ralph-mcp.bun.js', 'ralph-mcp.bun.js.jsc']) rmSync(join(dist, f), { force: true });
await bunBuild({
  ...(await bunBuildOptions(new URL('../src/startup/cli.ts', import.meta.url).pathname)),
  outdir: dist,
  naming: 'ralph-mcp.bun.[ext]',
});
const kb = (f) => `${(statSync(join(dist, f)).size / 1024).toFixed(0)} KB`;
process.stderr.write(
  `bun bundle: dist/ralph-mcp.bun.js ${kb('ralph-mcp.bun.js')}, bytecode ${kb('ralph-mcp.bun.js.jsc')} (Bun ${Bun.version})\n`,
);
