// `npm run build:exe`: one file that is the whole server, dist/ralph-mcp-<platform>-<arch>, made with
// Node's single executable applications (https://nodejs.org/api/single-executable-applications.html):
// a copy of this Node binary with, injected, the server bundled with better-sqlite3's JavaScript and the
// package files it reads (schema/, package.json), better-sqlite3's compiled addon as an asset (loaded
// from a private temporary copy: src/startup/sea.ts), started from a V8 startup snapshot of the evaluated bundle. It needs
// nothing
// installed where it runs (no Node, no node_modules), only the same platform and a C library as recent
// as the build machine's. Run after `npm run build` (the listings come from tsc's output).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { embeddedFiles, serverBuildOptions } from './serverBuild.mjs';

const repo = new URL('..', import.meta.url).pathname;
const work = join(repo, 'dist', 'sea');
const out = join(repo, 'dist', `ralph-mcp-${process.platform}-${process.arch}`);
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12))
  throw new Error(`build:exe needs Node >= 20.12 (SEA assets), this is ${process.version}`);

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const addon = join(
  dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  'better_sqlite3.node',
);
const addonBytes = readFileSync(addon);
const addonId = { sha256: createHash('sha256').update(addonBytes).digest('hex'), bytes: addonBytes.length };

const main = join(work, 'ralph-mcp-sea.cjs');
await build({
  ...(await serverBuildOptions({
    __RALPH_EMBEDDED__: JSON.stringify(embeddedFiles()),
    __RALPH_ADDON__: JSON.stringify(addonId),
  })),
  entryPoints: [join(repo, 'src', 'startup', 'sea.ts')],
  outfile: main,
  // Everything inside: a single executable's main script can require Node's built-in modules only.
  external: [],
  sourcemap: false,
});

const config = join(work, 'sea-config.json');
const blob = join(work, 'sea-prep.blob');

/**
 * The preparation blob: with a V8 startup snapshot of the evaluated bundle (src/startup/sea.ts), else — should
 * the snapshot fail to build (RALPH_MCP_EXE_SNAPSHOT=0 skips it) — with V8's code cache instead.
 */
function prepare(snapshot) {
  const startup = snapshot ? { useSnapshot: true } : { useCodeCache: true };
  writeFileSync(
    config,
    JSON.stringify(
      { main, output: blob, disableExperimentalSEAWarning: true, ...startup, assets: { 'better_sqlite3.node': addon } },
      null,
      2,
    ),
  );
  // Node warns that a few built-in modules the bundle loads (module, worker_threads) are not verified
  // in snapshots: the tests run every core end-to-end file through the result.
  const r = spawnSync(process.execPath, ['--experimental-sea-config', config], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`node --experimental-sea-config failed (${snapshot ? 'snapshot' : 'code cache'}):\n${r.stderr}`);
  return snapshot ? 'startup snapshot' : 'code cache';
}
let startup;
try {
  startup = prepare(process.env.RALPH_MCP_EXE_SNAPSHOT !== '0');
} catch (err) {
  process.stderr.write(`build:exe: ${err.message}\nbuild:exe: building with V8's code cache instead\n`);
  startup = prepare(false);
}

rmSync(out, { force: true });
copyFileSync(process.execPath, out);
chmodSync(out, 0o755);
// postject's CLI, in a child: its ELF library prints a warning per note section it does not name, noise
// about the copied binary rather than the injection (kept out; anything else is shown).
const postject = join(dirname(createRequire(import.meta.url).resolve('postject/package.json')), 'dist', 'cli.js');
const injected = spawnSync(process.execPath, [postject, out, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL], {
  encoding: 'utf8',
});
const shown = `${injected.stdout}${injected.stderr}`
  .replace(/\x1b\[[0-9;]*m/g, '')
  .split('\n')
  .filter((l) => l.trim() !== '' && !/^warning: Can't find string offset for section name/.test(l));
if (injected.status !== 0) throw new Error(`postject failed:\n${shown.join('\n')}`);
for (const l of shown) if (!/^(Start injection|Injection done|💉)/u.test(l)) process.stderr.write(`${l}\n`);
rmSync(work, { recursive: true, force: true });

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
process.stderr.write(
  `executable: ${out.slice(repo.length)} ${mb(statSync(out).size)} (Node ${process.version}, ${process.platform}-${process.arch}, ${startup})\n`,
);
