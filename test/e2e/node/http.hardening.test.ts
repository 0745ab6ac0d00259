import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { GENERATED_TOKEN_LINE, startHttpServer } from '../../helpers/httpServer.js';
import { rssMb, sampleRss } from '../../helpers/processStats.js';
import { RECIPE_TOOLS, inSpecOrder } from '../../helpers/spec.js';
import { sampleProject, tempDir } from '../../helpers/project.js';
import { runCli } from '../../helpers/server.js';

/** HTTP always needs a token; sessions are capped and expire; refusals cost nothing; backpressure. */

/** An explicit token where the test is about something else (so it runs the same against older builds). */
const TOKEN = 'hardening-test-token-0123456789abcdef';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
const YAP_TOOLS = inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length;
const inSession = (sid: string) => ({ 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Server = Awaited<ReturnType<typeof startHttpServer>>;

/** Starts the server on a fresh sample project, runs `fn`, and stops it whatever happens. */
async function withServer(args: string[], env: NodeJS.ProcessEnv, fn: (s: Server) => Promise<void>): Promise<void> {
  const server = await startHttpServer(['--project', sampleProject().root, ...args], env);
  try {
    await fn(server);
  } finally {
    server.child.kill('SIGTERM');
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface PostOptions {
  headers?: Record<string, string>;
  agent?: Agent;
  method?: string;
}

function post(port: number, token: string | undefined, body: unknown, opts: PostOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...opts.headers,
    };
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: opts.method ?? 'POST', agent: opts.agent, headers },
      (res) => {
        let b = '';
        res.on('data', (c: Buffer) => (b += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }));
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

const client = async (port: number, token: string): Promise<Client> => {
  const c = new Client({ name: 'h', version: '0' });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  await c.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return c;
};

describe('HTTP always requires a bearer token', () => {
  test('without --auth-token a token is generated and printed once on stderr, never on stdout or in the log file', async () => {
    const logFile = join(tempDir(), 'server.log');
    await withServer(['--recipe', 'yap', '--log-file', logFile], {}, async (server) => {
      assert.equal(server.stderr().match(new RegExp(GENERATED_TOKEN_LINE.source, 'gm'))?.length, 1, server.stderr());
      assert.ok(server.token.length >= 32, 'a strong token');
      assert.equal((await post(server.port, undefined, INIT)).status, 401, 'no token: refused');
      assert.equal((await post(server.port, 'guess', INIT)).status, 401, 'wrong token: refused');
      assert.equal((await post(server.port, server.token, INIT)).status, 200);
      assert.ok(!readFileSync(logFile, 'utf8').includes(server.token), 'the token is not in the log');
      assert.equal(server.stdout(), '');
    });
  });

  test('RALPH_MCP_TOKEN is used as given (nothing generated, nothing printed)', async () => {
    const token = 'from-the-environment-0123456789';
    await withServer(['--recipe', 'yap'], { RALPH_MCP_TOKEN: token }, async (server) => {
      assert.doesNotMatch(server.stderr(), GENERATED_TOKEN_LINE);
      assert.equal((await post(server.port, token, INIT)).status, 200);
      assert.equal((await post(server.port, undefined, INIT)).status, 401);
    });
  });

  test('a bad RALPH_MCP_SESSION_IDLE_SECONDS is refused in one line', () => {
    const r = runCli(['--project', sampleProject().root, '--recipe', 'yap', '--transport', 'http', '--port', '0'], {
      RALPH_MCP_SESSION_IDLE_SECONDS: 'soon',
    });
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^ralph-mcp: error: RALPH_MCP_SESSION_IDLE_SECONDS must be a positive number of seconds, got "soon"$/m,
    );
  });
});

/** What 1,500 initializes (64 kept, the rest refused) may add to the server's RSS: ~70 KB a session. */
const SESSIONS_RSS_BOUND_MB = 60;

describe('HTTP sessions are bounded', () => {
  test('refusals take no slot; of 1,500 initializes 63 open beside an existing session, the rest 503 + Retry-After; RSS bounded; a freed slot is reusable', async () => {
    await withServer(['--recipe', 'yap', '--auth-token', TOKEN], {}, async ({ port, child }) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 16 });
      try {
        const first = await client(port, TOKEN);
        await first.listTools();
        // A request without a valid session that is not initialize builds nothing; an oversized one is not read.
        const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
        const orphans = await Promise.all(Array.from({ length: 200 }, () => post(port, TOKEN, list, { agent })));
        assert.deepEqual([...new Set(orphans.map((a) => a.status))], [400]);
        assert.match(orphans[0]!.body, /no Mcp-Session-Id: a new MCP session starts with a POST initialize request/);
        const big = { ...INIT, params: { pad: 'x'.repeat(2 * 1024 * 1024) } };
        assert.equal((await post(port, TOKEN, big)).status, 413);
        assert.equal((await post(port, TOKEN, '{not json')).status, 400);
        assert.equal((await post(port, TOKEN, list, { headers: { 'Mcp-Session-Id': 'nope' } })).status, 404);

        const base = rssMb(child.pid!)!;
        const rss = sampleRss(child.pid!);
        const started = Date.now();
        const answers: Answer[] = [];
        for (let i = 0; i < 1500; i += 50)
          answers.push(...(await Promise.all(Array.from({ length: 50 }, () => post(port, TOKEN, INIT, { agent })))));
        const seconds = (Date.now() - started) / 1000;
        const peak = rss.stop();
        const ok = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status === 503);
        console.log(
          `http sessions: 1500 initializes in ${seconds.toFixed(1)} s, ${ok.length} opened, ${refused.length} refused, RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB`,
        );
        // The cap (64) less the session already open: none of the refusals above took a slot.
        assert.equal(ok.length, 63);
        assert.equal(refused.length, 1500 - 63);
        assert.equal(refused[0]!.headers['retry-after'], '30');
        const err = JSON.parse(refused[0]!.body) as { jsonrpc: string; error: { code: number; message: string } };
        assert.equal(err.jsonrpc, '2.0');
        assert.match(err.error.message, /already has 64 MCP sessions open \(its limit\); close one \(DELETE \/mcp/);
        const grew = peak - base;
        assert.ok(grew < SESSIONS_RSS_BOUND_MB, `RSS grew ${grew.toFixed(0)} MB (bound ${SESSIONS_RSS_BOUND_MB})`);
        assert.equal((await first.listTools()).tools.length, YAP_TOOLS, 'the existing session still works');
        // Closing one frees its slot.
        const sid = ok[0]!.headers['mcp-session-id'] as string;
        assert.equal((await post(port, TOKEN, '', { headers: inSession(sid), agent, method: 'DELETE' })).status, 200);
        assert.equal((await post(port, TOKEN, INIT, { agent })).status, 200);
        await first.close();
      } finally {
        agent.destroy();
      }
    });
  });
});

/** A GET stream opened on a session and never read: the response is held, paused, its socket kept. */
function unreadStream(port: number, token: string, sid: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${token}`, ...inSession(sid) };
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'GET', agent: false, headers }, (res) => {
      res.pause(); // never read
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end();
  });
}

describe('idle sessions expire; an open GET stream is no sign of a client', () => {
  const IDLE_1S = { RALPH_MCP_SESSION_IDLE_SECONDS: '1', RALPH_MCP_TOKEN: TOKEN };

  test('an idle session and sessions holding the other slots with unread GET streams expire; clients in use or answering pings are kept', async () => {
    await withServer(['--recipe', 'yap'], IDLE_1S, async (s) => {
      const streams: (() => void)[] = [];
      try {
        // A client in use all along; one that sits idle but whose SDK opens a GET stream and answers pings;
        // 61 sessions whose GET streams are never read; and a session never used again (no stream).
        const busy = await client(s.port, TOKEN);
        const kept = await client(s.port, TOKEN);
        for (let i = 0; i < 61; i++) {
          const a = await post(s.port, TOKEN, INIT);
          assert.equal(a.status, 200, a.body);
          streams.push(await unreadStream(s.port, TOKEN, a.headers['mcp-session-id'] as string));
        }
        const idle = (await post(s.port, TOKEN, INIT)).headers['mcp-session-id'] as string;
        assert.ok(idle);
        assert.equal((await post(s.port, TOKEN, INIT)).status, 503, 'every slot is taken');
        // Once idle (1 s), and for a stream also silent to the server's ping (1 s), a session is closed.
        // The idle session is not touched meanwhile (any request would count as use).
        const count = (msg: string) => s.stderr().split(`"msg":"${msg}"`).length - 1;
        const closed = () => [
          count('idle session closed'),
          count('idle session closed: its stream did not answer a ping'),
        ];
        const done = () => closed()[0]! >= 1 && closed()[1]! >= 61;
        for (const started = Date.now(); !done() && Date.now() - started < 30_000; await sleep(200)) await busy.ping();
        assert.deepEqual(closed(), [1, 61], 'closed: the idle session and each unread one');
        const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
        assert.equal((await post(s.port, TOKEN, ping, { headers: inSession(idle) })).status, 404, 'idle one gone');
        // New clients get sessions for the slots the unread ones held.
        const fresh = await Promise.all(Array.from({ length: 62 }, () => post(s.port, TOKEN, INIT)));
        assert.deepEqual([...new Set(fresh.map((a) => a.status))], [200], fresh.find((a) => a.status !== 200)?.body);
        for (const c of [busy, kept]) {
          assert.equal((await c.listTools()).tools.length, YAP_TOOLS);
          await c.close();
        }
      } finally {
        for (const end of streams) end();
      }
    });
  });
});

/** RSS bound for an HTTP client that pipelines requests on one connection and never reads. */
const HTTP_FLOOD_RSS_BOUND_MB = 100;
const HTTP_FLOOD_CONNECTIONS = 16;

test('HTTP backpressure: a connection that pipelines tools/list and never reads cannot grow the server; others are served', async () => {
  // The full suite: the largest tools/list.
  await withServer(['--auth-token', TOKEN], {}, async ({ port, child }) => {
    const sid = (await post(port, TOKEN, INIT)).headers['mcp-session-id'] as string;
    await post(port, TOKEN, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers: inSession(sid) });
    const warm = await client(port, TOKEN);
    await warm.listTools();
    const base = rssMb(child.pid!)!;
    const rss = sampleRss(child.pid!);
    // Many connections, each pipelining requests and reading nothing: each may cost the server at
    // most one answer plus MAX_UNSENT_BYTES, not every request its parser has already taken in.
    const socks = await Promise.all(
      Array.from({ length: HTTP_FLOOD_CONNECTIONS }, async () => {
        const s = connect(port, '127.0.0.1');
        await new Promise((r) => s.once('connect', r));
        s.on('error', () => undefined);
        s.pause(); // never reads
        return s;
      }),
    );
    const one = (id: number) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });
      return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    };
    let id = 10;
    let written = 0;
    const started = Date.now();
    // Each connection is written until the kernel takes no more (the server stopped reading it), up to
    // 200 MB in all or 15 s.
    const more = (sock: { destroyed: boolean }) =>
      written < 200 * 1024 * 1024 &&
      Date.now() - started < 15_000 &&
      rss.peak() - base < HTTP_FLOOD_RSS_BOUND_MB * 2 &&
      !sock.destroyed;
    await Promise.all(
      socks.map(async (sock) => {
        while (more(sock)) {
          let batch = '';
          while (batch.length < 256 * 1024) batch += one(id++);
          written += batch.length;
          if (!sock.write(batch)) {
            const drained = await Promise.race([
              new Promise((r) => sock.once('drain', () => r(true))),
              sleep(3000).then(() => false),
            ]);
            if (!drained) break;
          }
        }
      }),
    );
    const pinged = await Promise.race([warm.ping().then(() => true), sleep(20_000).then(() => false)]);
    assert.equal(pinged, true, 'another connection is answered meanwhile');
    const peak = rss.stop();
    console.log(
      `http flood: ${(written / 1048576).toFixed(1)} MB offered, server RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB`,
    );
    const grew = peak - base;
    assert.ok(
      grew < HTTP_FLOOD_RSS_BOUND_MB,
      `server RSS grew ${grew.toFixed(0)} MB (bound ${HTTP_FLOOD_RSS_BOUND_MB})`,
    );
    for (const sock of socks) sock.destroy();
    await warm.close();
    assert.equal(child.exitCode, null, 'still up');
  });
});
