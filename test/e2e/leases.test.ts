import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { row } from '../helpers/assertions.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { startSession } from '../helpers/server.js';
import { connectSocket } from '../helpers/socketClient.js';
import { exited, startSocketServer } from '../helpers/socketServer.js';
import { startHttpServer } from '../helpers/httpServer.js';
import { SERVER_RUNTIME } from '../helpers/env.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ralphTask } from '../helpers/ralphRead.js';
import { GENERATIONS } from '../../src/store/records.js';
import type { Session } from '../helpers/server.js';

/**
 * Issue 14, claims released when their session goes away, on the spawned server: a socket connection
 * that closes (the server lives on) and a stdio process whose stdin ends. (A kill -9 is left to the
 * lease: npm run stress, module leases.)
 */
const waitFor = async (what: string, cond: () => boolean): Promise<void> => {
  for (let waited = 0; !cond(); waited += 25) {
    if (waited > 10_000) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
type Project = ReturnType<typeof sampleProject>;
const status = (p: Project, id: number) => String(row(p, 'SELECT status FROM tasks WHERE id = ?', id)!.status);
const lastComment = (p: Project, id: number) =>
  String(row(p, 'SELECT body FROM task_comments WHERE task_id = ? ORDER BY id DESC LIMIT 1', id)?.body);
const holder = (p: Project, id: number) => row(p, 'SELECT session_id FROM ralph_mcp_claims WHERE task_id = ?', id);
const claimedId = async (c: Client) =>
  ((await c.callTool({ name: 'claim_next_task', arguments: {} })).structuredContent as { task: { id: number } }).task
    .id;

describe('claims released when the session goes away', () => {
  test('a socket connection holding a claim closes: the task is pending again, with a comment; the server goes on', async () => {
    const p = sampleProject();
    const socket = join(tempDir(), 'mcp.sock');
    const { child } = await startSocketServer(p.root, socket, ['--recipe', 'worker']);
    try {
      const a = await connectSocket(socket);
      assert.equal(await claimedId(a), 5);
      const sessionId = String(holder(p, 5)!.session_id);
      assert.match(sessionId, /-c1$/, 'the connection is the holder');
      await a.close();
      await waitFor('task 5 pending', () => status(p, 5) === 'pending');
      assert.equal(lastComment(p, 5), 'Released: connection closed');
      assert.equal(row(p, 'SELECT count(*) AS n FROM ralph_mcp_claims')!.n, 0);
      const audit = row(p, "SELECT * FROM ralph_mcp_audit WHERE tool = 'release_task' ORDER BY id DESC LIMIT 1")!;
      assert.deepEqual(
        [audit.session_id, audit.outcome, JSON.parse(String(audit.arguments))],
        [sessionId, 'ok', { reason: 'connection closed' }],
      );
      // Another connection takes it straight away.
      const b = await connectSocket(socket);
      assert.equal(await claimedId(b), 5);
      await b.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  test('an HTTP session holding a claim is deleted (DELETE /mcp): the task is pending again', async () => {
    const p = sampleProject();
    const token = 'lease-token-0123456789abcdef';
    const server = await startHttpServer(['--project', p.root, '--recipe', 'worker', '--auth-token', token]);
    try {
      const c = new Client({ name: 'lease-http', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      await c.connect(transport);
      assert.equal(await claimedId(c), 5);
      await transport.terminateSession();
      await c.close();
      await waitFor('task 5 pending', () => status(p, 5) === 'pending');
      assert.equal(lastComment(p, 5), 'Released: connection closed');
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  });

  test('a stdio session whose stdin ends gives its task back before it exits', async () => {
    const p = sampleProject();
    const s = await startSession(p, ['--recipe', 'worker', '--session-id', 'stdio-holder']);
    assert.equal((await s.ok('claim_next_task')).task.id, 5);
    await s.close();
    await waitFor('task 5 pending', () => status(p, 5) === 'pending');
    assert.match(lastComment(p, 5), /^Released: session ended \((stdin closed|SIGTERM|transport closed)\)$/);
  });
});

/**
 * Issue 27, claim_task across processes: two servers name the same task at once and exactly one gets it;
 * a holder that stops answering (SIGSTOP) is taken over once its lease runs out, and its writes are
 * refused when it wakes; a killed holder (SIGKILL: nothing gives the task back) is taken over the same
 * way. Both generations under Node; the runtime's SQLite driver is what matters under the others: one.
 */
const pidOf = (s: Session): number => (s.client.transport as StdioClientTransport).pid!;

/** claim_task until it succeeds (the holder's lease has to run out first); its result. */
async function claimWhenFree(s: Session, id: number): Promise<Record<string, any>> {
  for (let waited = 0; ; waited += 100) {
    const r = await s.call('claim_task', { id });
    if (!r.isError) return r.structuredContent as Record<string, any>;
    const e = (r.structuredContent as { error: { message: string } }).error;
    assert.match(e.message, /held by session/);
    if (waited > 20_000) throw new Error(`task ${id} never came free: ${e.message}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const generation of SERVER_RUNTIME === 'node' ? GENERATIONS : GENERATIONS.slice(-1))
  describe(`claim_task across processes [${generation}]`, () => {
    test('two race for one id, one wins; a stopped holder is taken over and refused; so is a killed one', async () => {
      const p = sampleProject(generation);
      const start = (id: string) => startSession(p, ['--recipe', 'worker', '--session-id', id, '--lease-seconds', '1']);
      const [a, b] = await Promise.all([start('race-a'), start('race-b')]);
      try {
        const results = await Promise.all([a.call('claim_task', { id: 5 }), b.call('claim_task', { id: 5 })]);
        assert.deepEqual(results.map((r) => Boolean(r.isError)).sort(), [false, true], JSON.stringify(results));
        const [winner, loser] = results[0]!.isError ? [b, a] : [a, b];
        const [winnerId, loserId] = winner === a ? ['race-a', 'race-b'] : ['race-b', 'race-a'];
        const refusal = (results.find((r) => r.isError)!.structuredContent as any).error;
        assert.equal(refusal.code, 'conflict');
        assert.match(refusal.message, new RegExp(`held by session ${winnerId} until `));
        assert.equal(holder(p, 5)!.session_id, winnerId);

        // The winner hangs: once its lease runs out the other takes the task over.
        process.kill(pidOf(winner), 'SIGSTOP');
        const took = await claimWhenFree(loser, 5);
        process.kill(pidOf(winner), 'SIGCONT');
        assert.equal(took.took_over.session_id, winnerId);
        assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
        // Awake again, the old holder's writes to the task are refused.
        for (const [tool, args] of [
          ['set_task_status', { status: 'done' }],
          ['update_task_context', { hints: 'stale' }],
          ['release_task', { reason: 'stale' }],
        ] as const) {
          const e = await winner.fail(tool, args);
          assert.equal(e.code, 'conflict', tool);
          assert.match(e.message, new RegExp(`taken over by session ${loserId}`), tool);
        }
        assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
        assert.equal(holder(p, 5)!.session_id, loserId);

        // The new holder is killed: nothing gives the task back, its lease runs out, the task is taken over.
        process.kill(pidOf(loser), 'SIGKILL');
        const again = await claimWhenFree(winner, 5);
        assert.equal(again.took_over.session_id, loserId);
        assert.equal((await winner.ok('set_task_status', { status: 'done' })).task.status, 'done');
        assert.equal(ralphTask(p.dbPath, 5)!.status, 'done');
      } finally {
        await Promise.allSettled([a.close(), b.close()]);
      }
    });

    // Issue 28: one --session-id in two live processes: distinct leases, so a killed one's task is taken over.
    test('two processes with one --session-id: neither takes, drops nor renews the other’s lease', async () => {
      const p = sampleProject(generation);
      const twin = ['--recipe', 'worker', '--session-id', 'twin', '--lease-seconds', '1'];
      const [a, b, c, y] = await Promise.all([
        startSession(p, twin),
        startSession(p, twin),
        startSession(p, ['--recipe', 'worker', '--session-id', 'twin-pool']),
        startSession(p, ['--recipe', 'yap']),
      ]);
      try {
        const other = (await y.ok('create_task', { feature: 'search', discipline: 'backend', title: 'Twin second' }))
          .task.id as number;
        await a.ok('claim_task', { id: 5 });
        const e = await b.fail('claim_task', { id: 5 });
        assert.equal(e.code, 'conflict');
        assert.match(e.message, /held by session twin until .*another process launched with this session id/);
        assert.equal((await b.ok('claim_next_task')).task.id, other);
        assert.equal(holder(p, 5)?.session_id, 'twin');
        // a dies; b keeps working (its calls renew its own lease only): the pool takes a's task over.
        process.kill(pidOf(a), 'SIGKILL');
        let working = true;
        const busy = (async () => {
          while (working) {
            await b.ok('get_task');
            await new Promise((r) => setTimeout(r, 150));
          }
        })();
        const took = await claimWhenFree(c, 5).finally(() => (working = false));
        await busy;
        assert.equal(took.took_over.session_id, 'twin');
        assert.equal((await b.ok('set_task_status', { status: 'done' })).task.id, other, 'b still holds its own');
      } finally {
        await Promise.allSettled([a.close(), b.close(), c.close(), y.close()]);
      }
    });

    test('a killed --task session: its first write took the lease, a worker takes the task over', async () => {
      const p = sampleProject(generation);
      const flags = ['--recipe', 'task_execution', '--task', '5', '--session-id', 'task-killed'];
      const t = await startSession(p, [...flags, '--lease-seconds', '1']);
      const w = await startSession(p, ['--recipe', 'worker', '--session-id', 'pool-worker']);
      try {
        await t.ok('add_task_comment', { body: 'starting' });
        assert.equal(holder(p, 5)!.session_id, 'task-killed');
        assert.equal((await w.ok('claim_next_task')).claimed, false, "a live task session is nobody else's");
        process.kill(pidOf(t), 'SIGKILL');
        const took = await claimWhenFree(w, 5);
        assert.equal(took.took_over.session_id, 'task-killed');
        assert.equal(ralphTask(p.dbPath, 5)!.status, 'in_progress');
      } finally {
        await Promise.allSettled([t.close(), w.close()]);
      }
    });
  });
