import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { sampleProject } from '../../helpers/project.js';
import { CLI } from '../../helpers/env.js';

/**
 * The launcher (src/startup/launcher.ts) and its V8 code cache: written by a session that runs a second, used
 * by the next start, ignored when stale, foreign or unsafe, never needed for the server to work; another
 * install's cache kept while it is used.
 */
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'ralph-cc-'));
  dirs.push(d);
  return d;
};
const project = sampleProject();

/**
 * A stdio session that lives `ms`, then ends (stdin closed); its code_cache log field and exit code.
 * `input`: lines written at once (requests the session answers while it runs).
 */
function session(
  env: Record<string, string>,
  ms: number,
  input = '',
): Promise<{ cache: string | undefined; code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, '--project', project.root, '--recipe', 'yap'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.write(input);
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    setTimeout(() => child.stdin.end(), ms);
    child.on('close', (code) => resolve({ cache: /"code_cache":"(\w+)"/.exec(stderr)?.[1], code, stderr, stdout }));
  });
}
const files = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8cache'));

test('a session that runs a second writes the cache; the next start uses it; a short run writes none', async () => {
  const dir = join(scratch(), 'cache');
  const v = spawnSync(process.execPath, [CLI, '--version'], {
    env: { ...process.env, RALPH_MCP_CACHE_DIR: dir },
    encoding: 'utf8',
  });
  assert.equal(v.status, 0);
  assert.deepEqual(files(dir), [], '--version ran too briefly to be cached');
  const first = await session({ RALPH_MCP_CACHE_DIR: dir }, 1500);
  assert.equal(first.cache, 'none');
  assert.equal(first.code, 0);
  const [file] = files(dir);
  assert.ok(file, 'the cache was written');
  assert.match(file!, new RegExp(`^bundle-${process.version}-${process.arch}-\\d+-\\d+\\.v8cache$`));
  const second = await session({ RALPH_MCP_CACHE_DIR: dir }, 200);
  assert.equal(second.cache, 'used');
});

test('a cache written after the session served tool calls is used by the next start', async () => {
  // The first call turns V8's optimising compiler back on (src/startup/v8Flags.ts); V8 keys its cache by
  // its flags, so a cache made under the changed flags would be rejected at every start.
  const dir = join(scratch(), 'cache');
  const lines = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } },
  ];
  const first = await session({ RALPH_MCP_CACHE_DIR: dir }, 1500, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  assert.equal(first.cache, 'none');
  assert.match(
    first.stdout,
    /"id":2,"result"|"result":\{[^\n]*"id":2/,
    'the call was answered before the cache was written',
  );
  assert.equal(files(dir).length, 1);
  assert.equal((await session({ RALPH_MCP_CACHE_DIR: dir }, 200)).cache, 'used');
});

test("two installs share the directory: another bundle's cache in use stays, one unused for weeks goes", async () => {
  const dir = join(scratch(), 'cache');
  mkdirSync(dir, { mode: 0o700 });
  const other = join(dir, `bundle-${process.version}-${process.arch}-1-1.v8cache`);
  const unused = join(dir, `bundle-${process.version}-${process.arch}-2-2.v8cache`);
  const killed = join(dir, `bundle-${process.version}-${process.arch}-3-3.v8cache.4242.tmp`);
  for (const f of [other, unused, killed]) writeFileSync(f, 'another build', { mode: 0o600 });
  const daysAgo = (d: number) => new Date(Date.now() - d * 24 * 60 * 60 * 1000);
  utimesSync(other, daysAgo(13), daysAgo(13));
  utimesSync(unused, daysAgo(15), daysAgo(15));
  utimesSync(killed, daysAgo(1), daysAgo(1));
  assert.equal((await session({ RALPH_MCP_CACHE_DIR: dir }, 1500)).cache, 'none');
  const [own] = files(dir).filter((f) => !f.includes('-1-1.') && !f.includes('-2-2.'));
  assert.ok(own, 'this bundle wrote its cache');
  assert.deepEqual(readdirSync(dir).sort(), [own!, basename(other)].sort());
  // A start that uses its cache marks it used (at most once a day), so that it is not taken for unused.
  const cache = join(dir, own!);
  utimesSync(cache, daysAgo(3), daysAgo(3));
  assert.equal((await session({ RALPH_MCP_CACHE_DIR: dir }, 200)).cache, 'used');
  assert.ok(Date.now() - statSync(cache).mtimeMs < 60_000, 'the used cache was marked used');
});

test('a corrupt cache is rejected, the session works, and the cache is rewritten', async () => {
  const dir = join(scratch(), 'cache');
  await session({ RALPH_MCP_CACHE_DIR: dir }, 1500);
  const [file] = files(dir);
  writeFileSync(join(dir, file!), Buffer.from('not V8 code cache at all'.repeat(100)));
  const bad = await session({ RALPH_MCP_CACHE_DIR: dir }, 1500);
  assert.equal(bad.cache, 'rejected');
  assert.equal(bad.code, 0);
  assert.notEqual(readFileSync(join(dir, file!)).toString().slice(0, 24), 'not V8 code cache at all');
  assert.equal((await session({ RALPH_MCP_CACHE_DIR: dir }, 200)).cache, 'used');
});

test('off, an unsafe directory or a symlinked file: no cache used, the server serves all the same', async () => {
  assert.equal((await session({ RALPH_MCP_CACHE_DIR: 'off' }, 200)).cache, 'off');
  const open = join(scratch(), 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  const loose = await session({ RALPH_MCP_CACHE_DIR: open }, 1200);
  assert.equal(loose.cache, 'off', 'a directory others may write is not trusted');
  assert.deepEqual(files(open), []);
  // A cache file that is a symlink (to a good cache elsewhere) is not followed.
  const good = join(scratch(), 'good');
  await session({ RALPH_MCP_CACHE_DIR: good }, 1500);
  const [file] = files(good);
  const linked = join(scratch(), 'linked');
  mkdirSync(linked, { mode: 0o700 });
  symlinkSync(join(good, file!), join(linked, file!));
  assert.equal((await session({ RALPH_MCP_CACHE_DIR: linked }, 200)).cache, 'none');
  const fileInPlace = join(scratch(), 'file');
  writeFileSync(fileInPlace, 'x');
  const notDir = await session({ RALPH_MCP_CACHE_DIR: fileInPlace }, 200);
  assert.equal(notDir.cache, 'off');
  assert.equal(notDir.code, 0);
});
