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

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function post(
  port: number,
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  agent?: Agent,
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method,
        agent,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      },
      (res) => {
        let b = '';
        res.on('data', (c: Buffer) => (b += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const client = async (port: number, token: string): Promise<Client> => {
  const c = new Client({ name: 'h', version: '0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return c;
};

describe('HTTP always requires a bearer token', () => {
  test('without --auth-token a token is generated and printed once on stderr, never on stdout or in the log file', async () => {
    const p = sampleProject();
    const logFile = join(tempDir(), 'server.log');
    const server = await startHttpServer(['--project', p.root, '--recipe', 'yap', '--log-file', logFile]);
    try {
      assert.equal(server.stderr().match(new RegExp(GENERATED_TOKEN_LINE.source, 'gm'))?.length, 1, server.stderr());
      assert.ok(server.token.length >= 32, 'a strong token');
      assert.equal((await post(server.port, undefined, INIT)).status, 401, 'no token: refused');
      assert.equal((await post(server.port, 'guess', INIT)).status, 401, 'wrong token: refused');
      assert.equal((await post(server.port, server.token, INIT)).status, 200);
      assert.ok(!readFileSync(logFile, 'utf8').includes(server.token), 'the token is not in the log');
      assert.equal(server.stdout(), '');
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  test('RALPH_MCP_TOKEN is used as given (nothing generated, nothing printed)', async () => {
    const server = await startHttpServer(['--project', sampleProject().root, '--recipe', 'yap'], {
      RALPH_MCP_TOKEN: 'from-the-environment-0123456789',
    });
    try {
      assert.doesNotMatch(server.stderr(), GENERATED_TOKEN_LINE);
      assert.equal((await post(server.port, 'from-the-environment-0123456789', INIT)).status, 200);
      assert.equal((await post(server.port, undefined, INIT)).status, 401);
    } finally {
      server.child.kill('SIGTERM');
    }
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
  test('1,500 initializes: 64 sessions, the rest 503 + Retry-After; RSS bounded; an existing session still works; a freed slot is reusable', async () => {
    const server = await startHttpServer(['--project', sampleProject().root, '--recipe', 'yap', '--auth-token', TOKEN]);
    const pid = server.child.pid!;
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    try {
      const first = await client(server.port, server.token);
      await first.listTools();
      const base = rssMb(pid)!;
      const rss = sampleRss(pid);
      const started = Date.now();
      const answers: Answer[] = [];
      for (let i = 0; i < 1500; i += 50) {
        answers.push(
          ...(await Promise.all(Array.from({ length: 50 }, () => post(server.port, server.token, INIT, {}, agent)))),
        );
      }
      const seconds = (Date.now() - started) / 1000;
      const peak = rss.stop();
      const ok = answers.filter((a) => a.status === 200);
      const refusedAnswers = answers.filter((a) => a.status === 503);
      console.log(
        `http sessions: 1500 initializes in ${seconds.toFixed(1)} s, ${ok.length} opened, ${refusedAnswers.length} refused, RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB`,
      );
      assert.equal(ok.length, 63, 'the cap (64) less the session already open');
      assert.equal(refusedAnswers.length, 1500 - 63);
      const r = refusedAnswers[0]!;
      assert.equal(r.headers['retry-after'], '30');
      const err = JSON.parse(r.body) as { jsonrpc: string; error: { code: number; message: string } };
      assert.equal(err.jsonrpc, '2.0');
      assert.match(err.error.message, /already has 64 MCP sessions open \(its limit\); close one \(DELETE \/mcp/);
      assert.ok(
        peak - base < SESSIONS_RSS_BOUND_MB,
        `RSS grew ${(peak - base).toFixed(0)} MB (bound ${SESSIONS_RSS_BOUND_MB})`,
      );
      assert.equal(
        (await first.listTools()).tools.length,
        inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length,
        'the existing session still works',
      );
      // Closing one frees its slot.
      const sid = ok[0]!.headers['mcp-session-id'] as string;
      assert.equal(
        (
          await post(
            server.port,
            server.token,
            '',
            { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' },
            agent,
            'DELETE',
          )
        ).status,
        200,
      );
      assert.equal((await post(server.port, server.token, INIT, {}, agent)).status, 200);
      await first.close();
    } finally {
      agent.destroy();
      server.child.kill('SIGTERM');
    }
  });

  test('a request without a valid session that is not initialize builds nothing and is refused; an oversized one is not read', async () => {
    const server = await startHttpServer(['--project', sampleProject().root, '--recipe', 'yap', '--auth-token', TOKEN]);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          post(server.port, server.token, { jsonrpc: '2.0', id: i, method: 'tools/list' }, {}, agent),
        ),
      );
      assert.ok(
        answers.every((a) => a.status === 400),
        'all refused',
      );
      assert.match(answers[0]!.body, /no Mcp-Session-Id: a new MCP session starts with a POST initialize request/);
      const big = await post(server.port, server.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { pad: 'x'.repeat(2 * 1024 * 1024) },
      });
      assert.equal(big.status, 413);
      assert.equal((await post(server.port, server.token, '{not json')).status, 400);
      assert.equal(
        (
          await post(
            server.port,
            server.token,
            { jsonrpc: '2.0', id: 1, method: 'tools/list' },
            { 'Mcp-Session-Id': 'nope' },
          )
        ).status,
        404,
      );
      // None of them took a session slot: all 64 are still there.
      const opened = await Promise.all(
        Array.from({ length: 64 }, () => post(server.port, server.token, INIT, {}, agent)),
      );
      assert.deepEqual([...new Set(opened.map((a) => a.status))], [200]);
    } finally {
      agent.destroy();
      server.child.kill('SIGTERM');
    }
  });

  test('an idle session is closed after the configured idle time; a session in use is kept', async () => {
    const server = await startHttpServer(['--project', sampleProject().root, '--recipe', 'yap'], {
      RALPH_MCP_SESSION_IDLE_SECONDS: '2',
    });
    try {
      const busy = await client(server.port, server.token);
      const idle = await post(server.port, server.token, INIT);
      const sid = idle.headers['mcp-session-id'] as string;
      assert.ok(sid);
      const ping = () =>
        post(
          server.port,
          server.token,
          { jsonrpc: '2.0', id: 2, method: 'ping' },
          { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' },
        );
      // Wait (generously) for the server to say it closed the idle one, using the busy one all along;
      // the idle one is not touched meanwhile (any request would count as use).
      const started = Date.now();
      while (!/"msg":"idle session closed"/.test(server.stderr()) && Date.now() - started < 30_000) {
        await busy.ping();
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.match(server.stderr(), /"msg":"idle session closed"/);
      assert.equal((await ping()).status, 404, 'the idle session is gone');
      await busy.ping(); // kept: it was in use
      assert.equal((await busy.listTools()).tools.length, inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length);
      await busy.close();
    } finally {
      server.child.kill('SIGTERM');
    }
  });
});

/** A GET stream opened on a session and never read: the response is held, paused, its socket kept. */
function unreadStream(port: number, token: string, sid: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'GET',
        agent: false,
        headers: {
          Accept: 'text/event-stream',
          Authorization: `Bearer ${token}`,
          'Mcp-Session-Id': sid,
          'Mcp-Protocol-Version': '2025-06-18',
        },
      },
      (res) => {
        res.pause(); // never read
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('an open GET stream is no sign of a client', () => {
  test('sessions holding every slot with unread GET streams expire; a client that answers pings is kept', async () => {
    const server = await startHttpServer(['--project', sampleProject().root, '--recipe', 'yap'], {
      RALPH_MCP_SESSION_IDLE_SECONDS: '1',
      RALPH_MCP_TOKEN: TOKEN,
    });
    const streams: (() => void)[] = [];
    try {
      // A well-behaved client (its SDK opens a GET stream and answers pings) and 63 streams never read.
      const kept = await client(server.port, TOKEN);
      for (let i = 0; i < 63; i++) {
        const a = await post(server.port, TOKEN, INIT);
        assert.equal(a.status, 200, a.body);
        streams.push(await unreadStream(server.port, TOKEN, a.headers['mcp-session-id'] as string));
      }
      const full = await post(server.port, TOKEN, INIT);
      assert.equal(full.status, 503, 'every slot is taken');
      // Once idle (1 s) and silent to the server's ping (1 s), the unread sessions are closed.
      let fresh = full;
      for (const started = Date.now(); fresh.status !== 200 && Date.now() - started < 30_000; ) {
        await new Promise((r) => setTimeout(r, 250));
        fresh = await post(server.port, TOKEN, INIT);
      }
      assert.equal(fresh.status, 200, `a new client gets a session once the unread ones expire: ${fresh.body}`);
      assert.match(server.stderr(), /"msg":"idle session closed: its stream did not answer a ping"/);
      // The SDK client sat idle as long with its stream open, answered the pings, and still has its session.
      assert.equal((await kept.listTools()).tools.length, inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length);
      await kept.close();
    } finally {
      for (const end of streams) end();
      server.child.kill('SIGTERM');
    }
  });
});

/** RSS bound for an HTTP client that pipelines requests on one connection and never reads. */
const HTTP_FLOOD_RSS_BOUND_MB = 100;
const HTTP_FLOOD_CONNECTIONS = 16;

test('HTTP backpressure: a connection that pipelines tools/list and never reads cannot grow the server; others are served', async () => {
  const server = await startHttpServer(['--project', sampleProject().root, '--auth-token', TOKEN]); // full suite: the largest tools/list
  const pid = server.child.pid!;
  try {
    const init = await post(server.port, server.token, INIT);
    const sid = init.headers['mcp-session-id'] as string;
    await post(
      server.port,
      server.token,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' },
    );
    const warm = await client(server.port, server.token);
    await warm.listTools();
    const base = rssMb(pid)!;
    const rss = sampleRss(pid);
    // Many connections, each pipelining requests and reading nothing: each may cost the server at
    // most one answer plus MAX_UNSENT_BYTES, not every request its parser has already taken in.
    const socks = await Promise.all(
      Array.from({ length: HTTP_FLOOD_CONNECTIONS }, async () => {
        const s = connect(server.port, '127.0.0.1');
        await new Promise((r) => s.once('connect', r));
        s.on('error', () => undefined);
        s.pause(); // never reads
        return s;
      }),
    );
    const one = (id: number) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });
      return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    };
    let id = 10;
    let written = 0;
    const started = Date.now();
    // Each connection is written until the kernel takes no more (the server stopped reading it), up to
    // 200 MB in all or 15 s.
    await Promise.all(
      socks.map(async (sock) => {
        while (
          written < 200 * 1024 * 1024 &&
          Date.now() - started < 15_000 &&
          rss.peak() - base < HTTP_FLOOD_RSS_BOUND_MB * 2 &&
          !sock.destroyed
        ) {
          let batch = '';
          while (batch.length < 256 * 1024) batch += one(id++);
          written += batch.length;
          if (!sock.write(batch)) {
            const drained = await Promise.race([
              new Promise((r) => sock.once('drain', () => r(true))),
              new Promise((r) => setTimeout(() => r(false), 3000)),
            ]);
            if (!drained) break;
          }
        }
      }),
    );
    const pinged = await Promise.race([
      warm.ping().then(() => true),
      new Promise((r) => setTimeout(() => r(false), 20_000)),
    ]);
    assert.equal(pinged, true, 'another connection is answered meanwhile');
    const peak = rss.stop();
    console.log(
      `http flood: ${(written / 1048576).toFixed(1)} MB offered, server RSS ${base.toFixed(0)} → peak ${peak.toFixed(0)} MB`,
    );
    assert.ok(
      peak - base < HTTP_FLOOD_RSS_BOUND_MB,
      `server RSS grew ${(peak - base).toFixed(0)} MB (bound ${HTTP_FLOOD_RSS_BOUND_MB})`,
    );
    for (const sock of socks) sock.destroy();
    await warm.close();
    assert.equal(server.child.exitCode, null, 'still up');
  } finally {
    server.child.kill('SIGTERM');
  }
});
