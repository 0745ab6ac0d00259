import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { openStore } from '../../../src/store/open/openStore.js';
import { startHttpServer } from '../../helpers/httpServer.js';
import { addTasks } from '../../helpers/manyTasks.js';
import { sampleProject, sql } from '../../helpers/project.js';
import { exited } from '../../helpers/socketServer.js';

/**
 * What the server sends unasked on a session's GET stream is bounded as on the socket: while the stream
 * waits for 'drain', a resource update is held, one per uri, and sent once the client reads again.
 */
const TASKS = 1000;
const ROUNDS = 60; // 60,000 updates of about 160 bytes: twice what the kernel and the 1 MiB bound hold
const PROTOCOL = '2025-03-26';

/** Task `id` as a subscriber may spell it: 15 digits, each percent-encoded (a longer notification). */
const longUri = (id: number) => `ralph://tasks/${[...String(id).padStart(15, '0')].map((d) => `%3${d}`).join('')}`;

async function post(port: number, token: string, body: unknown, sid?: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL,
      ...(sid && { 'Mcp-Session-Id': sid }),
    },
    body: JSON.stringify(body),
  });
}

/** A session subscribed to every task, whose GET stream is opened on a socket nothing reads yet. */
async function deafSession(port: number, token: string, ids: number[]): Promise<Socket> {
  const clientInfo = { name: 'deaf', version: '0' };
  const init = await post(port, token, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo },
  });
  const sid = init.headers.get('mcp-session-id')!;
  await init.text();
  await (await post(port, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).text();
  for (let i = 0; i < ids.length; i += 100) {
    const batch = ids
      .slice(i, i + 100) // the SDK's batch cap
      .map((id) => ({ jsonrpc: '2.0', id, method: 'resources/subscribe', params: { uri: longUri(id) } }));
    const answered = await (await post(port, token, batch, sid)).text();
    assert.equal(answered.match(/"result":\{\}/g)?.length, batch.length, answered.slice(0, 300));
  }
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.write(
    `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      `Accept: text/event-stream\r\nMcp-Session-Id: ${sid}\r\nMCP-Protocol-Version: ${PROTOCOL}\r\n\r\n`,
  );
  return socket;
}

/** Reads `socket` from now on: the uris of the updates it carries so far, and a wait for a quiet spell. */
function reading(socket: Socket): { uris: () => string[]; quiet: (ms: number) => Promise<void> } {
  let text = '';
  let last = Date.now();
  socket.on('data', (b: Buffer) => {
    text += b.toString('latin1');
    last = Date.now();
  });
  socket.resume();
  const uris = () =>
    [...text.matchAll(/"notifications\/resources\/updated","params":\{"uri":"([^"]+)"/g)].map((m) => m[1]!);
  const quiet = async (ms: number) => {
    while (Date.now() - last < ms) await new Promise((r) => setTimeout(r, 50));
  };
  return { uris, quiet };
}

test('HTTP: updates for a GET stream nobody reads are held, one per resource, and sent when it is read', async () => {
  const p = sampleProject('legacy');
  const { store } = openStore(p.dbPath);
  const ids = addTasks(store, TASKS);
  store.close();
  const { child, port, token } = await startHttpServer(['--project', p.root, '--recipe', 'opus_review']);
  const reader = new Client({ name: 'reader', version: '0' });
  let received = 0;
  reader.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void received++);
  let deaf: Socket | undefined;
  try {
    deaf = await deafSession(port, token, ids);
    await reader.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    // The last task is checked last: its update says a round's check is done (every update was sent).
    const last = `ralph://tasks/${ids.at(-1)}`;
    await reader.subscribeResource({ uri: last });
    const db = sql(p);
    const round = async (n: number) => {
      db.prepare("UPDATE tasks SET title = title || '!'").run(); // another program changes every task
      await reader.callTool({ name: 'add_task_comment', arguments: { task_id: 1, body: `round ${n}` } });
      for (const end = Date.now() + 10_000; received < n; await new Promise((r) => setTimeout(r, 5)))
        assert.ok(Date.now() < end, `round ${n}: ${received} updates of ${last}`);
    };
    try {
      for (let n = 1; n <= ROUNDS; n++) await round(n);
      assert.equal(received, ROUNDS, 'the reading subscriber: one update per change');
      // Written unheld, all 60,000 waited in the SDK's queue; now what the kernel took (about 24,000
      // here) and at most one held update per task, sent once the client reads.
      const stream = reading(deaf);
      await stream.quiet(1000);
      const waited = stream.uris().length;
      assert.ok(waited < (ROUNDS * TASKS * 3) / 4, `${waited} updates waited for the unread stream`);
      // Reading again, the client gets each change as it comes: one update per task, nothing left held.
      await round(ROUNDS + 1);
      await stream.quiet(1000);
      const after = stream.uris().slice(waited);
      assert.equal(after.length, TASKS);
      assert.deepEqual(new Set(after), new Set(ids.map(longUri)));
    } finally {
      db.close();
    }
  } finally {
    deaf?.destroy();
    await reader.close().catch(() => undefined);
    child.kill('SIGTERM');
    await exited(child);
  }
});
