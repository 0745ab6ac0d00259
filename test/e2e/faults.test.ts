import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { RpcChild, parseResult, type Reply } from '../../scripts/bench/rpc.js';
import { createSampleProject } from '../../scripts/sampleProject.js';
import { runCrashRounds } from '../../scripts/stress/crash.js';
import { splitEntries } from '../../src/domain/stateFiles.js';
import type { Project } from '../../src/domain/project.js';
import { CLI, REPO } from '../helpers/env.js';
import { query, sampleProject, tempDir } from '../helpers/project.js';

/**
 * Issue 7's faults, fast versions: kill -9 during multi-row writes (the long run is `npm run stress`),
 * a database locked by another program past the busy timeout, a read-only database, a full disk.
 * Each must give a clear tool error with a stable code; the server stays up and works again once the
 * cause is gone. Faults are real, not mocked: a second process holding SQLite's write lock, file
 * permissions enforced by the kernel (the server runs as `nobody` when the tests run as root, since
 * root ignores them), and a tiny tmpfs filled to the last byte (needs mount rights; skipped without).
 * The servers here run on Node only (scripts/run-tests.mjs); RALPH_MCP_BUSY_TIMEOUT_MS's refusal at
 * launch is in startup.test.ts.
 */

const children: RpcChild[] = [];
after(async () => {
  await Promise.all(children.map((c) => c.kill()));
});

/** The built server over stdio; `runAs` is a command line that runs it as another user (setpriv …). */
async function server(args: string[], opts: { env?: NodeJS.ProcessEnv; runAs?: string[] } = {}): Promise<RpcChild> {
  const [cmd, ...rest] = [...(opts.runAs ?? []), process.execPath, CLI, ...args, '--log-level', 'error'];
  const c = new RpcChild(cmd!, rest, { env: { ...process.env, ...opts.env }, timeoutMs: 30_000 });
  children.push(c);
  await c.initialize();
  return c;
}

const error = (r: Reply): { code: string; message: string } => {
  assert.ok(r.isError, `expected an error, got ${r.line.slice(0, 300)}`);
  return parseResult<{ structuredContent: { error: { code: string; message: string } } }>(r).structuredContent.error;
};
const alive = (c: RpcChild) =>
  assert.equal(c.proc.exitCode, null, `the server is still running (stderr: ${c.stderr()})`);
const titled = (p: Project, title: string) =>
  query<{ n: number }>(p, 'SELECT count(*) AS n FROM tasks WHERE title = ?', title)[0]!.n;
const integrity = (p: Project) => query<{ integrity_check: string }>(p, 'PRAGMA integrity_check')[0]!.integrity_check;

describe('kill -9 during multi-row writes', () => {
  test('4 rounds of two servers killed mid-stream (spawn_subtasks, skip_task, report_blocker): each write all or nothing', {
    timeout: 120_000,
  }, async () => {
    const r = await runCrashRounds({ rounds: 4, dir: tempDir('ralph-mcp-crash-') });
    console.log(
      `# seed ${r.seed}: ${r.kills} kills, ${r.calls} writes sent: ${r.whole} whole, ${r.absent} absent, ${r.answered} answered ok (${r.seconds.toFixed(1)} s)`,
    );
    assert.deepEqual(r.problems, [], 'integrity_check ok, no half-written write, no answered write lost');
    assert.equal(r.serverCrashes, 0);
    assert.equal(r.kills, 8);
    assert.ok(r.whole > 0, 'some writes committed before the kills');
  });
});

describe('database locked by another program', () => {
  test('longer than the busy timeout: a clear busy error, the server stays up, the same call works once the lock is gone', {
    timeout: 60_000,
  }, async () => {
    const p = sampleProject();
    const s = await server(['--project', p.root], { env: { RALPH_MCP_BUSY_TIMEOUT_MS: '300' } });
    await s.ok('create_task', { feature: 'recipes', discipline: 'backend', title: 'before the lock' });

    // Another program (Ralph, a sqlite3 shell) takes the write lock and keeps it.
    const locker = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.env.DB);
         db.exec('BEGIN EXCLUSIVE');
         db.prepare("INSERT INTO task_comments (task_id, author, body) VALUES (1, 'human', 'written while holding the lock')").run();
         process.stdout.write('locked\\n');
         process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
      ],
      { cwd: REPO, env: { ...process.env, DB: p.dbPath }, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lockerExit = new Promise((resolve) => locker.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        locker.stdout!.once('data', () => resolve());
        locker.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
      });
      const args = { feature: 'recipes', discipline: 'backend', title: 'written after the lock' };
      const t0 = performance.now();
      const err = error(await s.call('create_task', args));
      const waited = performance.now() - t0;
      assert.equal(err.code, 'busy');
      assert.match(err.message, /locked by another program for over 300 ms/);
      assert.match(err.message, /RALPH_MCP_BUSY_TIMEOUT_MS/);
      assert.match(err.message, /nothing was written; retry/);
      assert.ok(waited >= 250, `it waited for the busy timeout first (${Math.round(waited)} ms)`);
      assert.ok(waited < 5000, `it waited for the configured 300 ms, not the default 5 s (${Math.round(waited)} ms)`);
      // Meanwhile the session goes on: reads are never blocked (WAL), state files do not need the lock.
      alive(s);
      assert.equal((await s.ok('get_task', { id: 1 })).task.id, 1);
      await s.ok('append_progress', { text: 'progress while the database is locked' });
      assert.equal(error(await s.call('set_task_status', { id: 5, status: 'done' })).code, 'busy');
      assert.equal(titled(p, args.title), 0, 'the refused call wrote nothing');

      locker.stdin!.write('release\n');
      assert.equal(await lockerExit, 0);
      const ok = await s.ok('create_task', args);
      assert.equal(ok.task.title, args.title);
      assert.equal((await s.ok('set_task_status', { id: 5, status: 'done' })).changed, true);
      assert.equal(titled(p, args.title), 1);
      assert.equal(query(p, "SELECT 1 FROM task_comments WHERE body = 'written while holding the lock'").length, 1);
      alive(s);
    } finally {
      locker.kill('SIGKILL');
    }
  });
});

// ---- read-only database ------------------------------------------------------------------------

const NOBODY = 65534;
const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
const isRoot = process.getuid?.() === 0;

/** Root ignores file permissions, so as root the server runs as nobody (setpriv); the reason when it cannot. */
function readOnlySkip(): string | false {
  if (process.platform !== 'linux') return 'file permissions are simulated on Linux only';
  if (!isRoot) return false;
  const probe = spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), process.execPath, CLI, '--version'], {
    encoding: 'utf8',
  });
  if (probe.error || probe.status !== 0) {
    return `running as root, and the server cannot be started as nobody to make file permissions count (setpriv: ${probe.error?.message ?? probe.stderr.trim()})`;
  }
  return false;
}

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (statSync(path).isDirectory()) for (const e of readdirSync(path)) chownTree(join(path, e), uid);
}

describe('read-only database', () => {
  test('a clear io_error naming the cause; reads go on; writes work again once the files are writable', {
    skip: readOnlySkip(),
    timeout: 60_000,
  }, async () => {
    const dir = tempDir('ralph-mcp-readonly-');
    chmodSync(dir, 0o755);
    const p = createSampleProject(dir);
    if (isRoot) chownTree(dir, NOBODY);
    const dbFiles = () => readdirSync(join(p.ralphDir, 'db')).map((f) => join(p.ralphDir, 'db', f));
    for (const f of [...dbFiles(), p.progressFile]) chmodSync(f, 0o444);
    const s = await server(['--project', p.root], isRoot ? { runAs: AS_NOBODY } : {});

    // Reads work: SQLite opened the file read-only.
    assert.equal((await s.ok('get_task', { id: 3 })).task.id, 3);
    const args = { feature: 'recipes', discipline: 'backend', title: 'written once writable' };
    const err = error(await s.call('create_task', args));
    assert.equal(err.code, 'io_error');
    assert.match(err.message, /the database is read-only .*nothing was written/);
    assert.match(err.message, /ralph\.db and its -wal and -shm files/, 'it says what to fix');
    assert.equal(error(await s.call('add_task_comment', { task_id: 1, body: 'x' })).code, 'io_error');
    const appendErr = error(await s.call('append_progress', { text: 'progress on a read-only file' }));
    assert.equal(appendErr.code, 'io_error');
    assert.match(appendErr.message, /progress\.txt/);
    assert.match(appendErr.message, /EACCES|permission denied|read-only/i);
    alive(s);
    assert.equal(titled(p, args.title), 0);

    // The cause goes away (the -wal and -shm files SQLite made meanwhile are read-only too).
    for (const f of [...dbFiles(), p.progressFile]) chmodSync(f, 0o644);
    assert.equal((await s.ok('create_task', args)).task.title, args.title);
    await s.ok('add_task_comment', { task_id: 1, body: 'after the fix' });
    await s.ok('append_progress', { text: 'progress after the fix' });
    alive(s);
    await s.close();
    assert.equal(titled(p, args.title), 1);
    assert.equal(integrity(p), 'ok');
    assert.match(readFileSync(p.progressFile, 'utf8'), /progress after the fix/);
  });
});

// ---- disk full -----------------------------------------------------------------------------------

/** A tmpfs of `size` at a fresh directory, or the reason it cannot be mounted here. */
function mountTmpfs(size: string): { dir: string; unmount: () => void } | string {
  if (process.platform !== 'linux') return 'tmpfs mounts are Linux only';
  const dir = tempDir('ralph-mcp-full-');
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'ralph-mcp-test', dir], {
    encoding: 'utf8',
  });
  if (m.error || m.status !== 0)
    return `cannot mount a tmpfs to fill up (needs root or CAP_SYS_ADMIN): ${m.error?.message ?? m.stderr.trim().split('\n')[0]}`;
  return {
    dir,
    unmount: () => {
      if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir]);
    },
  };
}

const probe = mountTmpfs('64k');
const FULL_SKIP = typeof probe === 'string' ? probe : false;
if (typeof probe !== 'string') probe.unmount();

/** Writes zeros until the file system has not one byte left; returns the filler's path. */
function fill(dir: string): string {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  try {
    for (const chunk of [65536, 4096, 512, 1]) {
      const buf = Buffer.alloc(chunk);
      try {
        for (;;) if (writeSync(fd, buf) < chunk) break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

/** A sample project on a fresh 1 MB tmpfs, with a server on it; unmounted after fn. */
async function onTinyDisk(fn: (p: Project, s: RpcChild, dir: string) => Promise<void>): Promise<void> {
  const fs = mountTmpfs('1m');
  assert.ok(typeof fs !== 'string', fs as string);
  const mine: RpcChild[] = [];
  try {
    const root = join(fs.dir, 'project');
    mkdirSync(root);
    const p = createSampleProject(root);
    const s = await server(['--project', p.root]);
    mine.push(s);
    await fn(p, s, fs.dir);
  } finally {
    await Promise.all(mine.map((c) => c.kill()));
    fs.unmount();
  }
}

describe('disk full', () => {
  test('database writes: a clear io_error saying the disk is full, the server stays up, writes work again once space is freed', {
    skip: FULL_SKIP,
    timeout: 60_000,
  }, async () => {
    await onTinyDisk(async (p, s, dir) => {
      await s.ok('create_task', { feature: 'recipes', discipline: 'backend', title: 'before the disk filled up' });
      const filler = fill(dir);
      const args = {
        feature: 'recipes',
        discipline: 'backend',
        title: 'written once there is space',
        description: 'spacious '.repeat(2000),
      };
      const err = error(await s.call('create_task', args));
      assert.equal(err.code, 'io_error');
      assert.match(err.message, /disk is full; nothing was written/);
      const err2 = error(
        await s.call('spawn_subtasks', {
          parent_id: 5,
          tasks: Array.from({ length: 10 }, (_, i) => ({ title: `part ${i}`, description: 'roomy '.repeat(500) })),
        }),
      );
      assert.equal(err2.code, 'io_error');
      // The session goes on: reads work, and so does the next write once space is freed.
      alive(s);
      assert.equal((await s.ok('get_task', { id: 2 })).task.id, 2);
      assert.equal(titled(p, args.title), 0);
      assert.equal(
        query(p, "SELECT 1 FROM tasks WHERE title LIKE 'part %'").length,
        0,
        'the failed split left no subtask behind',
      );

      rmSync(filler);
      assert.equal((await s.ok('create_task', args)).task.title, args.title);
      assert.equal(
        (await s.ok('spawn_subtasks', { parent_id: 5, tasks: [{ title: 'part after' }] })).created.length,
        1,
      );
      alive(s);
      await s.close();
      assert.equal(titled(p, args.title), 1);
      assert.equal(integrity(p), 'ok');
    });
  });

  test('state files: a clear io_error, never half an entry in the file, and appends work again once space is freed', {
    skip: FULL_SKIP,
    timeout: 60_000,
  }, async () => {
    await onTinyDisk(async (p, s, dir) => {
      await s.ok('append_progress', { text: 'entry before the disk filled up' });
      const before = readFileSync(p.progressFile, 'utf8');
      const filler = fill(dir);
      // Longer than the room left in the file's last page: the kernel can take only the first part.
      const big = `a long entry\n${'lorem ipsum dolor sit amet '.repeat(250).trim()}`;
      const err = error(await s.call('append_progress', { text: big }));
      assert.equal(err.code, 'io_error');
      assert.match(err.message, /progress\.txt/);
      assert.match(err.message, /disk is (probably )?full/i);
      assert.match(err.message, /nothing was written/);
      assert.equal(
        readFileSync(p.progressFile, 'utf8'),
        before,
        'a failed append leaves the file as it was: never half an entry',
      );
      alive(s);

      rmSync(filler);
      await s.ok('append_progress', { text: big });
      const entries = splitEntries(readFileSync(p.progressFile, 'utf8'));
      assert.equal(entries.length, 2);
      assert.ok(entries[1]!.endsWith(`${big}\n\n`), 'the entry written after the fix is whole');
    });
  });
});
