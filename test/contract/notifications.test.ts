import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino, type Logger } from 'pino';
import { createMcpServer } from '../../src/server/createServer.js';
import { createLogger } from '../../src/server/log.js';
import { resourceFingerprint } from '../../src/server/resources.js';
import {
  CHECK_BATCH,
  ChangeWatcher,
  MAX_SUBSCRIPTIONS_PER_SERVER,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  watcherFor,
} from '../../src/server/watch.js';
import { openStore } from '../../src/store/open/openStore.js';
import type { Generation } from '../../src/store/records.js';
import { addTasks } from '../helpers/manyTasks.js';
import { tempDir } from '../helpers/project.js';
import { contract, type InProcSession } from './harness.js';
import { plainSql, rpcError as refused } from './support.security.js';

/**
 * Change notifications: resources/subscribe, then notifications/resources/updated when the resource's rows
 * change, whoever changed them (plain SQL on another connection, which moves SQLite's data_version as
 * another process would; another session on the same store, as on a shared server; the session itself);
 * logging/setLevel → notifications/message; idle cost. Streamable HTTP's GET stream: test/e2e/notifications.
 */

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean, what: string | (() => string), ms = 1000): Promise<void> {
  for (const end = performance.now() + ms; !done(); await sleep(2))
    if (performance.now() > end) throw new Error(`${typeof what === 'string' ? what : what()}: not within ${ms} ms`);
}

const TASK_TITLE: Record<Generation, string> = {
  legacy: 'UPDATE tasks SET title = ? WHERE id = ?',
  normalized: 'UPDATE task_details SET title = ? WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = ?)',
};
const TASK_STATUS: Record<Generation, string> = {
  legacy: 'UPDATE tasks SET status = ? WHERE id = ?',
  normalized: 'UPDATE runtime_tasks SET status = ? WHERE id = ?',
};
const FEATURE_DESCRIPTION: Record<Generation, string> = {
  legacy: 'UPDATE features SET description = ? WHERE name = ?',
  normalized: 'UPDATE subsystems SET description = ? WHERE name = ?',
};

/** Another connection of a shared server: its own MCP server and session scope on the same store. */
async function connect(s: InProcSession, n: number, log: Logger = silent): Promise<Client> {
  const scope = { ...s.plan.scope, sessionId: `${s.plan.scope.sessionId}-c${n}` };
  const { server } = createMcpServer({ ...s.plan, scope }, s.store, log);
  const [toServer, toClient] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'notify-test', version: '0' });
  await Promise.all([server.connect(toServer), client.connect(toClient)]);
  return client;
}

/** A client's notifications, and waits on the events themselves (the store's one watcher, not the clock). */
function watch(client: Client, s: InProcSession) {
  const updates: string[] = [];
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  const watcher = watcherFor(s.store, () => null, silent); // the server's, made when it was created
  const seen = (uri: string) => updates.filter((u) => u === uri).length;
  return {
    client,
    updates,
    logs,
    watcher,
    /** Runs `write`, waits for the check that saw it, then a round trip: whatever that check sent has arrived. */
    async checked(write: () => unknown): Promise<void> {
      const r = watcher.recomputes;
      await write();
      await until(() => watcher.recomputes > r, 'a check that saw the write');
      await client.ping();
    },
    /** Runs `write`: `uri` is notified (once more) within a second. */
    async updated(uri: string, write: () => unknown): Promise<void> {
      const n = seen(uri);
      await write();
      await until(
        () => seen(uri) > n,
        () => `notifications/resources/updated for ${uri} (got ${updates})`,
      );
    },
  };
}

/** A call that must succeed: no isError at all. */
async function succeeds(call: Promise<Record<string, unknown>>): Promise<void> {
  const r = await call;
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
}

contract('resource subscriptions', (env) => {
  const g = env.generation;

  test('capabilities declared; subscribe and unsubscribe answer {}; a state file or nothing is refused', async () => {
    const { client } = await env.open({ recipe: 'yap' });
    const caps = client.getServerCapabilities()!;
    assert.equal(caps.resources?.subscribe, true);
    assert.deepEqual(caps.logging, {});
    assert.deepEqual(await client.subscribeResource({ uri: 'ralph://tasks/1' }), {});
    assert.deepEqual(await client.unsubscribeResource({ uri: 'ralph://tasks/1' }), {});
    await assert.rejects(client.subscribeResource({ uri: 'ralph://progress' }), refused(-32602, /state file/));
    for (const uri of ['ralph://tasks/999', 'ralph://features/nope', 'https://example.com/'])
      await assert.rejects(client.subscribeResource({ uri }), refused(-32602, /Resource not found/), uri);
    assert.deepEqual(await client.unsubscribeResource({ uri: 'ralph://tasks/2' }), {}); // not subscribed: nothing
  });

  test("another connection's plain-SQL write notifies that task alone within 1 s; unsubscribe stops it", async () => {
    const s = await env.open({ recipe: 'yap' });
    const p = s.project;
    const w = watch(s.client, s);
    await s.client.subscribeResource({ uri: 'ralph://tasks/4' });
    await s.client.subscribeResource({ uri: 'ralph://tasks/5' });
    await w.updated('ralph://tasks/4', () => plainSql(p, TASK_STATUS[g], 'blocked', 4));
    await s.client.ping(); // anything else that check sent has arrived
    assert.deepEqual(w.updates, ['ralph://tasks/4']);

    // An unsubscribed task, and a write that changes nothing (on the normalized schema Ralph's trigger stamps
    // `updated` on any UPDATE, so there it is a change); the check also must not notify task 4 again.
    await w.checked(() => {
      plainSql(p, TASK_TITLE[g], 'Someone else renamed it', 6);
      if (g === 'legacy') plainSql(p, TASK_STATUS[g], 'pending', 5); // already pending
    });
    assert.deepEqual(w.updates, ['ralph://tasks/4'], 'no notification for an unsubscribed or unchanged resource');

    // A title change (task_details on the normalized schema) notifies too.
    await w.updated('ralph://tasks/5', () => plainSql(p, TASK_TITLE[g], 'FTS index, renamed', 5));

    await s.client.unsubscribeResource({ uri: 'ralph://tasks/4' });
    const before = w.updates.length;
    await w.checked(() => plainSql(p, TASK_STATUS[g], 'pending', 4));
    assert.equal(w.updates.length, before, 'unsubscribe stops notifications');
  });

  test("a comment, a feature, the progress notify their resources; the session's own writes too", async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const w = watch(s.client, s);
    for (const uri of ['ralph://tasks/3', 'ralph://features/search', 'ralph://project'])
      await s.client.subscribeResource({ uri });
    // The session's own write (its connection's data_version does not move): a check right after it.
    await w.updated('ralph://tasks/3', () =>
      succeeds(s.call('add_task_comment', { task_id: 3, body: 'Looks good so far.' })),
    );

    const desc = () => plainSql(s.project, FEATURE_DESCRIPTION[g], 'Search, described anew', 'search');
    await w.updated('ralph://features/search', desc);
    // Knowledge of a category kept apart from the feature's row (legacy: our own table) is part of it too.
    await w.updated('ralph://features/search', () =>
      s.ok('append_feature_learning', { feature_name: 'search', category: 'gotcha', text: 'Stop words are dropped' }),
    );
    await s.client.ping(); // anything else that check sent has arrived
    assert.equal(w.updates.filter((u) => u === 'ralph://project').length, 0, "a feature's description is not in it");

    // Progress counts change, by another connection and by the session itself.
    await w.updated('ralph://project', () => plainSql(s.project, TASK_STATUS[g], 'skipped', 6));
    await w.updated('ralph://project', () => s.ok('set_task_status', { id: 4, status: 'blocked' }));
  });

  test("a shared server: one connection's write notifies another; a closed one's subscriptions go", async () => {
    const s = await env.open({ recipe: 'yap' });
    const other = async (n: number) => watch(await connect(s, n), s);
    const [a, b, c] = await Promise.all([other(1), other(2), other(3)]);
    await a.client.subscribeResource({ uri: 'ralph://tasks/5' });
    await c.client.subscribeResource({ uri: 'ralph://tasks/5' });
    await c.client.subscribeResource({ uri: 'ralph://project' });
    await c.client.close(); // its subscriptions must not outlive it (nor break the others' notifications)
    assert.equal(a.watcher.size, 1, "only A's ralph://tasks/5 is watched");
    const write = () => succeeds(b.client.callTool({ name: 'update_task', arguments: { id: 5, priority: 'low' } }));
    await a.updated('ralph://tasks/5', write);
    await Promise.all([a.client.ping(), b.client.ping()]); // anything else that check sent has arrived
    assert.deepEqual(a.updates, ['ralph://tasks/5']);
    assert.deepEqual(b.updates, [], 'B subscribed to nothing');
    await Promise.all([a.client.close(), b.client.close()]);
  });

  test('one subscription per resource however it is spelled; the notification carries the spelling', async () => {
    const s = await env.open({ recipe: 'yap' });
    const w = watch(s.client, s);
    const spellings = ['ralph://tasks/5', 'ralph://tasks/05', 'ralph://tasks/%35', 'ralph://tasks/0005'];
    for (const uri of spellings) assert.deepEqual(await s.client.subscribeResource({ uri }), {});
    await s.client.subscribeResource({ uri: 'ralph://features/%73earch' });
    await s.client.subscribeResource({ uri: 'ralph://features/search' });
    assert.equal(w.watcher.size, 2, 'one key per resource: ralph://tasks/5 and ralph://features/search');
    assert.equal(w.watcher.subscriptions, 2);
    // One change, one notification, with the spelling this session subscribed with last.
    await w.updated('ralph://tasks/0005', () => plainSql(s.project, TASK_STATUS[g], 'blocked', 5));
    await s.client.ping();
    assert.deepEqual(w.updates, ['ralph://tasks/0005']);
    // Any spelling unsubscribes it.
    await s.client.unsubscribeResource({ uri: 'ralph://tasks/%30%35' });
    await s.client.unsubscribeResource({ uri: 'ralph://features/search' });
    assert.equal(w.watcher.size, 0);
    assert.equal(w.watcher.active, false);
  });

  test('caps: 1,000 subscriptions per session and 10,000 per server, refused past them', async () => {
    const s = await env.open({ recipe: 'yap' });
    const uris = addTasks(s.store, MAX_SUBSCRIPTIONS_PER_SESSION).map((id) => `ralph://tasks/${id}`);
    const first = await connect(s, 1);
    await Promise.all(uris.map((uri) => first.subscribeResource({ uri })));
    await assert.rejects(
      first.subscribeResource({ uri: 'ralph://tasks/1' }),
      refused(-32600, /this session already holds 1000 subscriptions/),
    );
    // Subscribing again to one it holds, in another spelling, is no new subscription.
    assert.deepEqual(await first.subscribeResource({ uri: uris[0]!.replace('tasks/', 'tasks/0') }), {});
    // Nine more sessions' share, straight into the shared watcher (a session is one subscriber there; the
    // protocol's path is the one above): the server's cap counts them all.
    const watcher = watcherFor(s.store, () => null, silent);
    const others = Array.from({ length: MAX_SUBSCRIPTIONS_PER_SERVER / uris.length - 1 }, () => () => {});
    for (const other of others) for (const uri of uris) assert.equal(watcher.subscribe(uri, other), undefined);
    assert.equal(watcher.subscriptions, MAX_SUBSCRIPTIONS_PER_SERVER);
    assert.equal(watcher.size, MAX_SUBSCRIPTIONS_PER_SESSION, 'one key per resource, whoever subscribed');
    await assert.rejects(
      s.client.subscribeResource({ uri: 'ralph://project' }),
      refused(-32600, /this server's sessions already hold 10000 subscriptions/),
    );
    // A session that closes gives its subscriptions back.
    await first.close();
    assert.deepEqual(await s.client.subscribeResource({ uri: 'ralph://project' }), {});
    for (const other of others) watcher.unsubscribeAll(other);
    assert.equal(watcher.subscriptions, 1);
  });

  test('logging: nothing before logging/setLevel; after it, a refused call and an unknown tool are sent', async () => {
    const s = await env.open({ recipe: 'yap' });
    const { client, logs } = watch(await connect(s, 1, createLogger('info', join(tempDir(), 'server.log'))), s);
    const getMissing = async () =>
      assert.equal((await client.callTool({ name: 'get_task', arguments: { id: 999 } })).isError, true);
    await getMissing();
    await client.ping(); // a message sent before the answer has arrived by now
    assert.equal(logs.length, 0, 'no level set: no messages');

    await client.setLoggingLevel('info');
    await getMissing();
    await assert.rejects(client.callTool({ name: 'delete_task', arguments: { id: 1 } })); // not in yap
    await client.ping();
    const refusal = logs.find((l) => (l.data as { tool?: string }).tool === 'get_task');
    assert.ok(refusal, JSON.stringify(logs));
    assert.equal(refusal.level, 'notice');
    assert.equal(refusal.logger, 'ralph-mcp');
    assert.deepEqual(
      { ...(refusal.data as object), reason: undefined },
      { message: 'call refused', tool: 'get_task', outcome: 'not_found', reason: undefined },
    );
    const unknown = logs.find((l) => (l.data as { tool?: string }).tool === 'delete_task');
    assert.ok(
      unknown && unknown.level === 'info' && (unknown.data as { outcome: string }).outcome === 'unknown_tool',
      JSON.stringify(logs),
    );

    // A higher level filters them out again; an unknown level is refused.
    await client.setLoggingLevel('warning');
    const n = logs.length;
    await getMissing();
    await client.ping();
    assert.equal(logs.length, n);
    await assert.rejects(
      client.request(
        { method: 'logging/setLevel', params: { level: 'loud' } } as never,
        LoggingMessageNotificationSchema as never,
      ),
      /Invalid params/,
    );
    await client.close();
  });

  test('the watcher: no timer without subscriptions; with them, no recompute while nothing commits', async () => {
    const p = env.sample();
    const { store } = openStore(p.dbPath);
    try {
      const w = new ChangeWatcher(store, (uri) => resourceFingerprint(store, uri), silent, 10);
      const seen: string[] = [];
      const notify = (uri: string) => void seen.push(uri);
      assert.equal(w.active, false);
      w.subscribe('ralph://tasks/1', notify);
      w.subscribe('ralph://project', notify);
      assert.equal(w.active, true);
      await sleep(100); // ten checks of data_version
      assert.equal(w.recomputes, 0, 'nothing committed: no fingerprint recomputed');
      plainSql(p, TASK_STATUS[g], 'blocked', 1);
      await until(() => w.recomputes > 0, 'a recompute');
      await sleep(50); // five more checks
      assert.equal(w.recomputes, 1);
      assert.deepEqual(seen.sort(), ['ralph://project', 'ralph://tasks/1']);
      w.unsubscribeAll(notify);
      assert.equal(w.active, false, 'the last unsubscribe stops the timer');
      assert.equal(w.size, 0);
    } finally {
      store.close();
    }
  });

  test('a check fingerprints each watched resource once, at most CHECK_BATCH of them per turn', async () => {
    const p = env.sample();
    const { store } = openStore(p.dbPath);
    try {
      let calls = 0;
      let firstTurn: number | undefined;
      const fingerprint = (key: string) => {
        if (++calls === 1) queueMicrotask(() => (firstTurn = calls)); // runs once the synchronous work yields
        return resourceFingerprint(store, key);
      };
      const w = new ChangeWatcher(store, fingerprint, silent, 10);
      const ids = addTasks(store, 1000);
      const seen: string[] = [];
      const [a, b] = [(uri: string) => void seen.push(`a ${uri}`), (uri: string) => void seen.push(`b ${uri}`)];
      for (const id of ids) {
        w.subscribe(`ralph://tasks/${id}`, a);
        w.subscribe(`ralph://tasks/${id}`, b);
      }
      calls = 0;
      plainSql(p, TASK_STATUS[g], 'blocked', ids[999]);
      await until(() => w.recomputes > 0, 'a recompute', 5000);
      assert.equal(calls, 1000, 'each resource once, not once per subscriber');
      assert.ok(firstTurn !== undefined && firstTurn <= CHECK_BATCH, `${firstTurn} fingerprints in one turn`);
      assert.deepEqual(seen.sort(), [`a ralph://tasks/${ids[999]}`, `b ralph://tasks/${ids[999]}`]);
      w.unsubscribeAll(a);
      w.unsubscribeAll(b);
      assert.equal(w.active, false);
    } finally {
      store.close();
    }
  });
});

contract(
  'idle cost',
  (env) => {
    // Measured alone: under 1 ms of CPU per second idle, with or without subscriptions, once the open's own
    // aftermath (V8's compile and GC threads, ~20 ms) is over; a busy loop is a whole core, a recompute per check
    // a few percent. The bound: 3% of a core.
    const IDLE_MS = 1000;
    test("an idle server's CPU stays near zero, with or without subscriptions; nothing sent", async () => {
      const s = await env.open({ recipe: 'yap' });
      const w = watch(s.client, s);
      const idle = async () => {
        const [r, t0] = [w.watcher.recomputes, process.cpuUsage()];
        await sleep(IDLE_MS);
        const { user, system } = process.cpuUsage(t0);
        assert.equal(w.watcher.recomputes, r, 'nothing committed: no fingerprint recomputed');
        return (user + system) / 1000;
      };
      assert.equal(w.watcher.active, false, 'no timer without subscriptions');
      await sleep(500); // the open's aftermath is not idle time
      const without = await idle();
      for (let id = 1; id <= 8; id++) await s.client.subscribeResource({ uri: `ralph://tasks/${id}` });
      await s.client.subscribeResource({ uri: 'ralph://project' });
      await s.client.subscribeResource({ uri: 'ralph://features/recipes' });
      const withSubs = await idle();
      assert.ok(without <= IDLE_MS * 0.03, `${without} ms of CPU without subscriptions`);
      assert.ok(withSubs <= IDLE_MS * 0.03, `${withSubs} ms of CPU with 10`);
      assert.deepEqual(w.updates, [], 'nothing changed, nothing sent');
    });
  },
  ['normalized'],
);
