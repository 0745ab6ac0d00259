import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { sampleProject, sql } from '../helpers/project.js';
import { startRaw } from '../helpers/rawServer.js';

/**
 * Signals in the middle of writes. Each tool call runs in one SQLite transaction, so whatever the
 * moment of the signal, a multi-row write (spawn_subtasks: N tasks + rewired dependencies + a comment
 * on the parent) is all there or not at all, and the database passes integrity_check.
 */
const PER_CALL = 6;

function spawnArgs(k: number) {
  return {
    parent_id: (k % 5) + 3,
    tasks: Array.from({ length: PER_CALL }, (_, j) => ({ title: `sig-${k}-${j}` })),
    chain: true,
  };
}

/** For each batch k: how many of its subtasks exist, and whether its parent got the "Split" comment. */
function batches(
  project: ReturnType<typeof sampleProject>,
  count: number,
): { k: number; rows: number; comment: boolean }[] {
  const db = sql(project);
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    assert.deepEqual(db.pragma('foreign_key_check'), []);
    return Array.from({ length: count }, (_, k) => {
      const ids = db.prepare("SELECT id FROM tasks WHERE title LIKE ? ESCAPE '\\' ORDER BY id").all(`sig-${k}-%`) as {
        id: number;
      }[];
      const comment =
        ids.length > 0 &&
        !!db
          .prepare('SELECT 1 FROM task_comments WHERE body = ?')
          .get(`Split: subtasks ${ids.map((r) => `#${r.id}`).join(', ')}`);
      return { k, rows: ids.length, comment };
    });
  } finally {
    db.close();
  }
}

describe('signals during writes', () => {
  test('SIGTERM while multi-row writes stream in: clean exit, each write whole or absent, and every write that happened was answered', async () => {
    const project = sampleProject();
    const server = await startRaw(['--project', project.root, '--log-level', 'warn']);
    // Requests keep arriving one by one while the signal lands, so some are mid-stream.
    // Requests keep arriving, one every few ms, until the server has exited: the signal always lands
    // mid-stream, whatever the machine's speed.
    let sent = 0;
    let sentAfterKill = 0;
    let killed = false;
    const sending = (async () => {
      while (server.child.exitCode === null && server.child.signalCode === null && sent < 2_000) {
        void server.call('spawn_subtasks', spawnArgs(sent++)).catch(() => null);
        if (killed) sentAfterKill++;
        await new Promise((r) => setTimeout(r, 3));
      }
    })();
    while (server.responses.size < 40) await new Promise((r) => setTimeout(r, 1));
    killed = true;
    server.child.kill('SIGTERM');
    // …and one right behind the signal, so the server always has input it must not half-process.
    void server.call('spawn_subtasks', spawnArgs(sent++)).catch(() => null);
    sentAfterKill++;
    await sending;
    const exit = await server.exited;
    assert.equal(exit.code, 0, `clean exit on SIGTERM (stderr: ${server.stderr()})`);
    assert.deepEqual(server.junk, [], 'nothing but JSON-RPC on stdout');
    const answered = new Set(
      [...server.responses.values()].filter((r) => r.id !== 1 && r.result && !r.result.isError).map((r) => r.id),
    );
    const result = batches(project, sent);
    for (const b of result) {
      assert.ok(b.rows === 0 || b.rows === PER_CALL, `batch ${b.k}: ${b.rows} of ${PER_CALL} subtasks (half-written)`);
      assert.equal(b.comment, b.rows === PER_CALL, `batch ${b.k}: subtasks and the parent's comment go together`);
    }
    // Request ids: 1 was initialize, so batch k has id k + 2. An answered write is never lost.
    for (const b of result)
      if (answered.has(b.k + 2)) assert.equal(b.rows, PER_CALL, `batch ${b.k} was answered ok but is missing`);
    assert.ok(answered.size >= 1);
    assert.equal(
      result.filter((b) => b.rows > 0).length,
      answered.size,
      'every write that happened was answered before exit',
    );
    const written = result.filter((b) => b.rows > 0).length;
    console.log(
      `# SIGTERM: ${sent} sent (${sentAfterKill} after the signal), ${answered.size} answered, ${written} written`,
    );
    assert.ok(!existsSync(`${project.dbPath}-wal`), 'the database was closed (its WAL checkpointed and removed)');
  });

  test('kill -9 at random moments, 6 times: the database stays consistent and each write is all or nothing', async () => {
    const project = sampleProject();
    let k0 = 0;
    for (let round = 0; round < 6; round++) {
      const server = await startRaw(['--project', project.root, '--log-level', 'warn']);
      const pending = Array.from({ length: 40 }, (_, i) =>
        server.call('spawn_subtasks', spawnArgs(k0 + i)).catch(() => null),
      );
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 40)));
      server.child.kill('SIGKILL');
      await server.exited;
      await Promise.all(pending);
      k0 += 40;
      for (const b of batches(project, k0)) {
        assert.ok(b.rows === 0 || b.rows === PER_CALL, `round ${round}, batch ${b.k}: ${b.rows} of ${PER_CALL}`);
        assert.equal(b.comment, b.rows === PER_CALL);
      }
    }
  });
});
