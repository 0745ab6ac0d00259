// `npm run build:exe`: one file that is the whole server, dist/ralph-mcp-<platform>-<arch>, made with
// Node's single executable applications (https://nodejs.org/api/single-executable-applications.html):
// a copy of this Node binary with, injected, the server bundled with better-sqlite3's JavaScript and the
// package files it reads (schema/, package.json), better-sqlite3's compiled addon as an asset (loaded
// from a private temporary copy: src/sea.ts) and V8's code cache of the bundle. It needs nothing
// installed where it runs (no Node, no node_modules), only the same platform and a C library as recent
// as the build machine's. Run after `npm run build` (the listings come from tsc's output).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { serverBuildOptions } from './serverBuild.mjs';

const repo = new URL('..', import.meta.url).pathname;
const work = join(repo, 'dist', 'sea');
const out = join(repo, 'dist', `ralph-mcp-${process.platform}-${process.arch}`);
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) throw new Error(`build:exe needs Node >= 20.12 (SEA assets), this is ${process.version}`);

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

/** What the server reads from its package at run time, embedded as text. */
function embeddedFiles() {
  const files = { 'package.json': readFileSync(join(repo, 'package.json'), 'utf8') };
  for (const name of readdirSync(join(repo, 'schema'))) files[`schema/${name}`] = readFileSync(join(repo, 'schema', name), 'utf8');
  return files;
}

const main = join(work, 'ralph-mcp-sea.cjs');
await build({
  ...(await serverBuildOptions({ __RALPH_EMBEDDED__: JSON.stringify(embeddedFiles()) })),
  entryPoints: [join(repo, 'src', 'sea.ts')],
  outfile: main,
  // Everything inside: a single executable's main script can require Node's built-in modules only.
  external: [],
  sourcemap: false,
});

const addon = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
const config = join(work, 'sea-config.json');
const blob = join(work, 'sea-prep.blob');
writeFileSync(
  config,
  JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets: { 'better_sqlite3.node': addon } }, null, 2),
);
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });

rmSync(out, { force: true });
copyFileSync(process.execPath, out);
chmodSync(out, 0o755);
const { inject } = await import('postject');
await inject(out, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SENTINEL });
rmSync(work, { recursive: true, force: true });

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
process.stderr.write(`executable: ${out.slice(repo.length)} ${mb(statSync(out).size)} (Node ${process.version}, ${process.platform}-${process.arch})\n`);
