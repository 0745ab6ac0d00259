// `npm run build:exe:bun` (run by Bun: `bun scripts/build-exe-bun.mjs`, after `npm run build`): the Bun
// single executable, dist/ralph-mcp-bun-<platform>-<arch>. `bun build --compile` with the server
// compiled to bytecode, bun:sqlite as its SQLite driver and the package files it reads (schema/,
// package.json) inside: it needs no Node, no node_modules and no Bun where it runs, only the same
// platform. The same server as the Node executable (scripts/build-exe.mjs) and the npm bundle; its
// entry is src/startup/bunExe.ts. It starts under a JIT policy (scripts/bunBuild.mjs) that the
// server lifts once it serves (src/startup/v8Flags.ts).
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bunBuild, bunBuildOptions, STARTUP_JIT_POLICY } from './bunBuild.mjs';
import { embeddedFiles } from './serverBuild.mjs';

if (typeof Bun === 'undefined') throw new Error('build:exe:bun runs under Bun: bun scripts/build-exe-bun.mjs');
const repo = new URL('..', import.meta.url).pathname;
const out = join(repo, 'dist', `ralph-mcp-bun-${process.platform}-${process.arch}`);

const options = await bunBuildOptions(join(repo, 'src', 'startup', 'bunExe.ts'), {
  __RALPH_EMBEDDED__: JSON.stringify(embeddedFiles()),
});
rmSync(out, { force: true });
await bunBuild({
  ...options,
  compile: {
    outfile: out,
    jitPolicy: STARTUP_JIT_POLICY,
    // The executable is the server alone: it reads no .env, bunfig.toml, tsconfig.json or package.json
    // of the directory it is started in.
    autoloadDotenv: false,
    autoloadBunfig: false,
    autoloadTsconfig: false,
    autoloadPackageJson: false,
  },
});
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
process.stderr.write(
  `executable: ${out.slice(repo.length)} ${mb(statSync(out).size)} (Bun ${Bun.version}, ${process.platform}-${process.arch}, bytecode)\n`,
);
