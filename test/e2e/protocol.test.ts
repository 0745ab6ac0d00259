import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../../src/server/createServer.js';
import { createLogger } from '../../src/server/log.js';
import { openSession } from '../../src/session/open.js';
import { serverCommand } from '../helpers/env.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { exited, startSocketServer } from '../helpers/socketServer.js';

/**
 * Every request kind, sent as lines over stdio and over the socket to the built server, gets the
 * answer the SDK's standard handling gives: the same server code connected to the SDK's own
 * StdioServerTransport in this process, on an identical project, every request through the SDK
 * (no direct calls, no line guard). Among them a tools/call with a progress token, and a call
 * cancelled in the same write it was sent in: the SDK answers nothing to a cancelled request.
 */
const FLAGS = ['--recipe', 'yap'];
const CLIENT = { name: 'protocol-test', version: '1' };
const note = (method: string, params?: object) => ({ jsonrpc: '2.0', method, ...(params && { params }) });
const req = (id: number, method: string, params?: object) => ({ id, ...note(method, params) });
const BRIEF_COMPLETION = { ref: { type: 'ref/prompt', name: 'task_brief' }, argument: { name: 'task_id', value: '1' } };

/** Each write is one chunk of lines; the last request of each is waited for before the next write. */
const SCRIPT: object[][] = [
  [req(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT })],
  [note('notifications/initialized'), req(2, 'ping')],
  [req(3, 'tools/list')],
  [req(4, 'tools/call', { name: 'get_task', arguments: { id: 1 } })],
  [req(5, 'tools/call', { name: 'get_task', arguments: { id: 999 } })],
  [req(6, 'tools/call', { name: 'delete_task', arguments: { id: 1 } })],
  [req(7, 'tools/call', { name: 'get_task', arguments: '1' })],
  [req(8, 'tools/call', { name: 'list_tasks', arguments: { limit: 2 }, _meta: { progressToken: 'p8' } })],
  [req(9, 'resources/list')],
  [req(10, 'resources/templates/list')],
  [req(11, 'resources/read', { uri: 'ralph://tasks/1' })],
  [req(12, 'resources/subscribe', { uri: 'ralph://tasks/1' })],
  [req(13, 'resources/unsubscribe', { uri: 'ralph://tasks/1' })],
  [req(14, 'prompts/list')],
  [req(15, 'prompts/get', { name: 'task_brief', arguments: { task_id: '2' } })],
  [req(16, 'completion/complete', BRIEF_COMPLETION)],
  [req(17, 'logging/setLevel', { level: 'error' })],
  [req(18, 'frobnicate')],
  [
    req(19, 'tools/call', { name: 'get_task', arguments: { id: 2 }, _meta: { progressToken: 19 } }),
    note('notifications/cancelled', { requestId: 19, reason: 'changed my mind' }),
    req(20, 'ping'),
  ],
  [req(21, 'tools/call', { name: 'search_tasks', arguments: { query: 'recipe' } })],
];

/** Sends the script over a pair of streams; the answers by id, as the lines written. */
async function run(input: Writable, output: Readable, script = SCRIPT): Promise<Map<number, string>> {
  const answers = new Map<number, string>();
  const waiting = new Map<number, () => void>();
  let buf = '';
  output.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = JSON.parse(line) as { id?: number; method?: string };
      if (m.id === undefined || m.method !== undefined) continue; // notifications (logs) are not answers
      answers.set(m.id, line);
      waiting.get(m.id)?.();
    }
  });
  for (const chunk of script) {
    const last = [...chunk].reverse().find((m) => 'id' in m) as { id: number };
    const answered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${last.id}`)), 10_000);
      waiting.set(last.id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    input.write(chunk.map((m) => `${JSON.stringify(m)}\n`).join(''));
    await answered;
  }
  return answers;
}

/** The reference: this server's code with every request through the SDK's own stdio transport. */
async function reference(script = SCRIPT): Promise<Map<number, string>> {
  const { plan, store } = openSession({ project: sampleProject().root, recipe: 'yap' });
  const { server } = createMcpServer(plan, store, createLogger('silent'));
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  await server.connect(new StdioServerTransport(toServer, fromServer));
  try {
    return await run(toServer, fromServer, script);
  } finally {
    await server.close();
    store.close();
  }
}

describe('every request kind, as the SDK answers it', async () => {
  const want = await reference();
  /** The server's answers are the reference's, and it too answers nothing to the cancelled call. */
  const assertAsReference = (got: Map<number, string>) => {
    for (const [id, line] of want) assert.equal(got.get(id), line, `answer ${id}`);
    assert.equal(got.has(19), false, 'no answer to the cancelled call');
  };

  test('the reference answered every request but the cancelled one', () => {
    const ids = SCRIPT.flat().flatMap((m) => ('id' in m ? [(m as { id: number }).id] : []));
    assert.deepEqual(
      [...want.keys()].sort((a, b) => a - b),
      ids.filter((id) => id !== 19),
    );
    assert.match(want.get(7)!, /"code":-32602/, 'string arguments: invalid params');
    assert.match(want.get(18)!, /"code":-32601/, 'unknown method');
  });

  test('over stdio', async () => {
    const cmd = serverCommand(['--project', sampleProject().root, ...FLAGS]);
    const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      assertAsReference(await run(child.stdin, child.stdout));
    } finally {
      child.kill();
    }
  });

  test('over the socket', async () => {
    const socket = join(tempDir(), 'mcp.sock');
    const server = await startSocketServer(sampleProject().root, socket, FLAGS);
    try {
      const conn = connect(socket);
      await new Promise((resolve) => conn.once('connect', resolve));
      const got = await run(conn, conn);
      conn.end();
      assertAsReference(got);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  });
});

/**
 * The first requests are answered before the SDK's Server exists (transport/sdkOnDemand.ts), which is
 * made at the first request that needs it and told the initialize it missed. Whenever that happens, and
 * whatever the initialize, the answers are the SDK's.
 */
describe('the SDK made on demand answers as the SDK from the start', () => {
  /** Runs `script` against the built server over stdio and against the reference; the same answers. */
  async function same(script: object[][]): Promise<Map<number, string>> {
    const want = await reference(script);
    const cmd = serverCommand(['--project', sampleProject().root, ...FLAGS]);
    const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      const got = await run(child.stdin, child.stdout, script);
      assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
      for (const [id, line] of want) assert.equal(got.get(id), line, `answer ${id}`);
      return got;
    } finally {
      child.kill();
    }
  }
  const initialize = req(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT });

  test("a client's start (the lists) before the Server, then a call", async () => {
    const lists = [
      req(2, 'tools/list'),
      req(3, 'prompts/list'),
      req(4, 'resources/list'),
      req(5, 'resources/templates/list'),
      req(6, 'resources/list', { cursor: '2' }),
      req(7, 'prompts/list', { cursor: 'x' }),
    ];
    await same([
      [initialize],
      [note('notifications/initialized'), ...lists],
      [req(8, 'resources/list', { cursor: 'not a number' })],
      [req(9, 'tools/call', { name: 'get_task', arguments: { id: 1 } })],
    ]);
  });

  test('everything in one write: the Server made while the requests behind the first call wait', async () => {
    const calls = [
      req(2, 'tools/list'),
      req(3, 'tools/call', { name: 'get_task', arguments: { id: 1 } }),
      req(4, 'resources/list'),
      req(5, 'ping'),
      req(6, 'tools/call', { name: 'list_tasks', arguments: { limit: 2 } }),
      req(7, 'tools/list'),
    ];
    await same([[initialize, note('notifications/initialized'), ...calls]]);
  });

  test('an initialize the front does not read (icons, _meta) goes to the SDK from the first line', async () => {
    const unusual = req(1, 'initialize', {
      protocolVersion: '2024-11-05',
      capabilities: { roots: { listChanged: true }, tasks: {} },
      clientInfo: { ...CLIENT, icons: [{ src: 'https://example.com/i.png' }] },
      _meta: { progressToken: 'p' },
    });
    await same([
      [unusual],
      [note('notifications/initialized'), req(2, 'tools/list')],
      [req(3, 'tools/call', { name: 'get_task', arguments: { id: 1 } })],
    ]);
  });

  test('a protocol version the SDK does not know, then a second initialize', async () => {
    const old = req(1, 'initialize', {
      protocolVersion: '1999-01-01',
      capabilities: { elicitation: {} },
      clientInfo: CLIENT,
    });
    const again = req(3, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: CLIENT });
    await same([
      [old],
      [req(2, 'tools/list')],
      [again],
      [req(4, 'tools/call', { name: 'get_task', arguments: { id: 2 } })],
    ]);
  });

  test('a tool call before initialize, and a malformed tools/list', async () => {
    await same([
      [req(1, 'tools/call', { name: 'get_task', arguments: { id: 1 } })],
      [req(2, 'tools/list', { cursor: 5 })],
      [initialize],
      [req(3, 'tools/list', { cursor: 'next' })],
    ]);
  });
});
