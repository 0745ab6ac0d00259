import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { test } from 'node:test';
import { startHttpServer } from '../helpers/httpServer.js';
import { sampleProject, sql } from '../helpers/project.js';

/**
 * Notifications over Streamable HTTP, which needs the process: a subscription's update arrives on the session's
 * standalone GET stream, a refused call's log message on its POST's own. Everything else about subscriptions
 * and logging: test/contract/notifications.test.ts. (@modelcontextprotocol/conformance 0.1.16 needs Node 22 and
 * subscribes to its own fixture's resource: these are its resources-subscribe and logging-set-level steps.)
 */

async function until(done: () => boolean, what: () => string, ms = 1000): Promise<void> {
  for (const end = performance.now() + ms; !done(); await new Promise((r) => setTimeout(r, 5)))
    if (performance.now() > end) throw new Error(`${what()}: not within ${ms} ms`);
}

test('Streamable HTTP: a plain-SQL write notifies the session within a second; a refused call is logged', async () => {
  const p = sampleProject('legacy');
  const { child, port, token } = await startHttpServer(['--project', p.root, '--recipe', 'yap']);
  const client = new Client({ name: 'conformance-like', version: '0' });
  const updates: string[] = [];
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  let getStreamOpen = false; // the client opens it after initialize; the server holds it once it answered
  const fetchSeeingGet: typeof fetch = async (url, init) => {
    const res = await fetch(url, init);
    if (init?.method === 'GET' && res.ok) getStreamOpen = true;
    return res;
  };
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
        fetch: fetchSeeingGet,
      }),
    );
    assert.deepEqual(await client.subscribeResource({ uri: 'ralph://tasks/5' }), {});
    assert.deepEqual(await client.setLoggingLevel('info'), {});
    await until(
      () => getStreamOpen,
      () => 'the standalone GET stream',
      10_000,
    );
    const db = sql(p);
    db.prepare('UPDATE tasks SET status = ? WHERE id = ?').run('blocked', 5);
    db.close();
    await until(
      () => updates.includes('ralph://tasks/5'),
      () => `notifications/resources/updated (got ${updates})`,
    );
    const r = await client.callTool({ name: 'get_task', arguments: { id: 999 } });
    assert.equal(r.isError, true);
    await until(
      () => logs.some((l) => l.level === 'notice' && (l.data as { tool?: string }).tool === 'get_task'),
      () => JSON.stringify(logs),
    );
    assert.deepEqual(await client.unsubscribeResource({ uri: 'ralph://tasks/5' }), {});
  } finally {
    await client.close().catch(() => undefined);
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
});
