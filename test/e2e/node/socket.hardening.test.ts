import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sampleProject, tempDir } from '../../helpers/project.js';
import { runCli } from '../../helpers/server.js';
import { connectSocket } from '../../helpers/socketClient.js';
import { exited, rawSocket, startSocketServer } from '../../helpers/socketServer.js';
import { rssMb, sampleRss } from '../../helpers/processStats.js';
import { CLI } from '../../helpers/env.js';
import { generateProject } from '../../../scripts/bench/datagen.js';
import { DIRECT_CALLS_ENV } from '../../../src/transport/directCalls.js';

/** What --socket may remove, the pid file, the socket's mode at birth, and backpressure. */
const serveArgs = (root: string, socket: string) =>
  ['--project', root, '--recipe', 'yap', '--transport', 'socket', '--socket', socket] as string[];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type SocketServer = Awaited<ReturnType<typeof startSocketServer>>;

/** Once the server has started, runs `fn`, and stops the server whatever happens. */
async function withServer(started: Promise<SocketServer>, fn: (s: SocketServer) => Promise<void>): Promise<void> {
  const server = await started;
  try {
    await fn(server);
  } finally {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
}

/** A refusal: status 2, exactly one line on stderr naming the path, nothing on stdout. */
function refused(r: { status: number | null; stdout: string; stderr: string }, path: string, what: RegExp): void {
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('ralph-mcp: error:'));
  assert.equal(lines.length, 1, r.stderr);
  assert.ok(lines[0]!.includes(path), lines[0]);
  assert.match(lines[0]!, what);
}

describe('--socket removes only a socket proven stale', () => {
  test('a regular file, the live database, a directory and a symlink are refused and left as they were', () => {
    const p = sampleProject();
    const dir = tempDir();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'keep me\n');
    refused(runCli(serveArgs(p.root, file)), file, /a regular file is there, not a socket/);
    assert.equal(readFileSync(file, 'utf8'), 'keep me\n');

    const db = readFileSync(p.dbPath);
    refused(runCli(serveArgs(p.root, p.dbPath)), p.dbPath, /a regular file is there/);
    assert.ok(readFileSync(p.dbPath).equals(db), 'the database is untouched');

    const sub = join(dir, 'sub');
    mkdirSync(sub);
    refused(runCli(serveArgs(p.root, sub)), sub, /a directory is there/);
    assert.ok(statSync(sub).isDirectory());

    const link = join(dir, 'link.sock');
    symlinkSync(file, link);
    refused(runCli(serveArgs(p.root, link)), link, /a symbolic link is there/);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(file, 'utf8'), 'keep me\n');
  });

  test('a live socket that is not ours is refused, not removed', async () => {
    const p = sampleProject();
    const path = join(tempDir(), 'other.sock');
    const other = createServer((c) => c.end());
    await new Promise<void>((r) => other.listen(path, r));
    try {
      // spawnSync would block this process, and with it the other server's accept: run it async.
      const child = spawn(process.execPath, [CLI, ...serveArgs(p.root, path)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
      child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
      const status = await exited(child);
      refused({ status, stdout, stderr }, path, /already listening/);
      assert.ok(lstatSync(path).isSocket(), 'the other server keeps its socket');
    } finally {
      other.close();
    }
  });
});

describe('the pid file', () => {
  test('a symlink planted at PATH.pid is refused; its target is not written', () => {
    const p = sampleProject();
    const dir = tempDir();
    const socket = join(dir, 'mcp.sock');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, `${socket}.pid`);
    refused(runCli(serveArgs(p.root, socket)), `${socket}.pid`, /a symbolic link is there/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    assert.ok(!existsSync(socket), 'no socket left behind');
  });

  test('a pid file naming a running process is refused; one naming a dead process is replaced, 0600', async () => {
    const p = sampleProject();
    const socket = join(tempDir(), 'mcp.sock');
    const pidFile = `${socket}.pid`;
    writeFileSync(pidFile, `${process.pid}\n`); // this test process: alive
    refused(runCli(serveArgs(p.root, socket)), pidFile, new RegExp(`names pid ${process.pid}, which is running`));
    assert.equal(readFileSync(pidFile, 'utf8'), `${process.pid}\n`);

    writeFileSync(pidFile, '999999999\n'); // above any pid_max: not alive
    const server = await startSocketServer(p.root, socket, ['--recipe', 'yap']);
    try {
      assert.equal(statSync(pidFile).mode & 0o777, 0o600);
      assert.equal(readFileSync(pidFile, 'utf8'), `${server.child.pid}\n`);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await exited(server.child), 0);
    }
    assert.ok(!existsSync(pidFile) && !existsSync(socket));
  });
});

test('under umask 000 the socket is owner-only from birth (not only after the chmod)', async () => {
  const dir = tempDir();
  const socket = join(dir, 'mcp.sock');
  // Preloaded: chmodSync does nothing, so what is checked is the mode bind() gave the socket.
  const preload = join(dir, 'no-chmod.mjs');
  writeFileSync(
    preload,
    "import fs from 'node:fs'; import { syncBuiltinESMExports } from 'node:module'; fs.chmodSync = () => {}; syncBuiltinESMExports();\n",
  );
  const opts = { shell: 'umask 000', nodeArgs: ['--import', preload] };
  await withServer(startSocketServer(sampleProject().root, socket, ['--recipe', 'yap'], opts), async () => {
    assert.equal(statSync(socket).mode & 0o777, 0o600, 'no group or other access at bind time');
    // The umask was restored: files the server makes later keep the launcher's umask (000 here).
    const c = await connectSocket(socket);
    await c.callTool({ name: 'append_progress', arguments: { text: 'umask check' } }).catch(() => undefined);
    await c.close();
  });
});

/**
 * RSS bound for a client that pipelines requests and never reads: the server may hold about 1 MiB of
 * unsent answers plus 64 answers in flight per connection; 100 MB above its start leaves room for V8's
 * garbage on a noisy machine.
 */
const FLOOD_RSS_BOUND_MB = 100;

test('backpressure: a client that pipelines tools/list and never reads cannot grow the server; others are still served', async () => {
  const socket = join(tempDir(), 'mcp.sock');
  // The full suite: tools/list is the largest answer (~20 KB).
  await withServer(startSocketServer(sampleProject().root, socket, []), async ({ child }) => {
    const warm = await connectSocket(socket);
    await warm.listTools();
    await warm.close();
    const base = rssMb(child.pid!)!;
    const rss = sampleRss(child.pid!);
    const flood = await rawSocket(socket);
    flood.pause(); // never reads
    const line = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}\n`;
    let id = 1;
    let written = 0;
    const started = Date.now();
    // Up to 200 MB of requests, or 15 s: each write waits for the kernel to take the previous one.
    while (written < 200 * 1024 * 1024 && Date.now() - started < 15_000 && rss.peak() - base < FLOOD_RSS_BOUND_MB * 2) {
      let batch = '';
      while (batch.length < 256 * 1024) batch += line(id++);
      written += batch.length;
      if (!flood.write(batch)) {
        const drained = await Promise.race([
          new Promise((r) => flood.once('drain', () => r(true))),
          sleep(3000).then(() => false),
        ]);
        if (!drained) break; // the server stopped reading us: exactly what should happen
      }
    }
    const other = await connectSocket(socket);
    const pinged = await Promise.race([other.ping().then(() => true), sleep(20_000).then(() => false)]);
    assert.equal(pinged, true, 'a ping on another connection is answered while the flood is held');
    await other.close();
    const peak = rss.stop();
    console.log(
      `socket flood: ${(written / 1048576).toFixed(1)} MB offered, server RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB`,
    );
    const grew = peak - base;
    assert.ok(grew < FLOOD_RSS_BOUND_MB, `server RSS grew ${grew.toFixed(0)} MB (bound ${FLOOD_RSS_BOUND_MB})`);
    flood.destroy();
    assert.equal(child.exitCode, null, 'the server is still up');
  });
});

/**
 * The bound is in bytes, whatever the answer size: a client that pipelines large pages and never reads
 * costs the server about MAX_UNSENT_BYTES (1 MiB) plus one answer (~0.2 MB here), plus V8's garbage from
 * computing them. 40 MB is far above that and far below what it cost when 64 requests could be computed
 * before any answer was counted.
 */
const LARGE_FLOOD_RSS_BOUND_MB = 40;
const LARGE_PAGES = 300;
/** One 2,000-task project, generated once: both paths only read it. */
let large: string | undefined;
const largeProject = (): string => {
  if (large === undefined) {
    large = tempDir();
    generateProject(CLI, large, 2000);
  }
  return large;
};

for (const path of ['direct', 'sdk'] as const) {
  test(`backpressure in bytes (${path} path): ${LARGE_PAGES} pipelined list_tasks pages, never read`, async () => {
    const dir = largeProject();
    const socket = join(dir, `${path}.sock`);
    const saved = process.env[DIRECT_CALLS_ENV];
    process.env[DIRECT_CALLS_ENV] = path === 'sdk' ? 'off' : '';
    const started = startSocketServer(dir, socket, ['--recipe', 'yap']).finally(() => {
      if (saved === undefined) delete process.env[DIRECT_CALLS_ENV];
      else process.env[DIRECT_CALLS_ENV] = saved;
    });
    const page = { name: 'list_tasks', arguments: { limit: 500 } };
    await withServer(started, async ({ child }) => {
      const warm = await connectSocket(socket);
      const pageBytes = JSON.stringify(await warm.callTool(page)).length;
      assert.ok(pageBytes > 150_000, `a page is large (${pageBytes} bytes)`);
      await warm.close();
      const base = rssMb(child.pid!)!;
      const rss = sampleRss(child.pid!, 50);
      const flood = await rawSocket(socket);
      flood.pause(); // reads nothing until the end
      let lines = '';
      for (let id = 1; id <= LARGE_PAGES; id++)
        lines += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: page })}\n`;
      flood.write(lines);
      // Another connection is served while the flood is held.
      const other = await connectSocket(socket);
      await other.ping();
      await sleep(2000); // time for the server to compute all it will
      await other.ping();
      await other.close();
      const peak = rss.stop();
      // Nothing was dropped: once read, every page is answered.
      let got = 0;
      let rest = '';
      flood.on('data', (b: Buffer) => {
        const parts = (rest + b.toString('latin1')).split('\n');
        rest = parts.pop()!;
        got += parts.length;
      });
      flood.resume();
      for (let waited = 0; got < LARGE_PAGES + 1 && waited < 60_000; waited += 50) await sleep(50);
      flood.destroy();
      console.log(
        `socket large-page flood (${path}): ${LARGE_PAGES} × ${(pageBytes / 1e6).toFixed(2)} MB, server RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB`,
      );
      assert.equal(got, LARGE_PAGES + 1, 'the initialize and every page answered once read');
      const grew = peak - base;
      assert.ok(
        grew <= LARGE_FLOOD_RSS_BOUND_MB,
        `server RSS grew ${grew.toFixed(0)} MB (bound ${LARGE_FLOOD_RSS_BOUND_MB})`,
      );
    });
  });
}
