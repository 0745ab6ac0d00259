import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { row } from '../helpers/assertions.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { startSession } from '../helpers/server.js';
import { connectSocket } from '../helpers/socketClient.js';
import { exited, startSocketServer } from '../helpers/socketServer.js';
import { startHttpServer } from '../helpers/httpServer.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

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
const status = (p: ReturnType<typeof sampleProject>, id: number) =>
  String(row(p, 'SELECT status FROM tasks WHERE id = ?', id)!.status);
const lastComment = (p: ReturnType<typeof sampleProject>, id: number) =>
  String(row(p, 'SELECT body FROM task_comments WHERE task_id = ? ORDER BY id DESC LIMIT 1', id)?.body);

describe('claims released when the session goes away', () => {
  test('a socket connection holding a claim closes: the task is pending again, with a comment; the server goes on', async () => {
    const p = sampleProject();
    const socket = join(tempDir(), 'mcp.sock');
    const { child } = await startSocketServer(p.root, socket, ['--recipe', 'worker']);
    try {
      const a = await connectSocket(socket);
      const claimed = (await a.callTool({ name: 'claim_next_task', arguments: {} })).structuredContent as {
        task: { id: number };
      };
      assert.equal(claimed.task.id, 5);
      const sessionId = String(row(p, 'SELECT session_id FROM ralph_mcp_claims WHERE task_id = 5')!.session_id);
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
      assert.equal(
        ((await b.callTool({ name: 'claim_next_task', arguments: {} })).structuredContent as { task: { id: number } })
          .task.id,
        5,
      );
      await b.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  test('an HTTP session holding a claim is deleted (DELETE /mcp): the task is pending again', async () => {
    const p = sampleProject();
    const server = await startHttpServer([
      '--project',
      p.root,
      '--recipe',
      'worker',
      '--auth-token',
      'lease-token-0123456789abcdef',
    ]);
    try {
      const c = new Client({ name: 'lease-http', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
        requestInit: { headers: { Authorization: 'Bearer lease-token-0123456789abcdef' } },
      });
      await c.connect(transport);
      const claimed = (await c.callTool({ name: 'claim_next_task', arguments: {} })).structuredContent as {
        task: { id: number };
      };
      assert.equal(claimed.task.id, 5);
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
