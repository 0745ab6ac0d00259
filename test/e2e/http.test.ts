import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startHttpServer } from '../helpers/httpServer.js';
import { RECIPE_TOOLS, inSpecOrder } from '../helpers/spec.js';
import type { Project } from '../../src/domain/project.js';
import { query, sampleProject, setOverrides } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';
import { UNAUTHORIZED_CHALLENGE } from '../../src/transport/http.js';

/** --transport http: Streamable HTTP at /mcp, loopback, Host/Origin checks, bearer token, many clients. */
type Http = { child: ChildProcess; port: number; token: string; stderr: () => string };

async function startHttp(flags: string[], p: Project): Promise<Http> {
  const server = await startHttpServer(['--project', p.root, ...flags]);
  server.child.on('exit', () => assert.equal(server.stdout(), '', 'nothing on stdout'));
  return server;
}

/** The status a raw initialize POST gets with these headers. */
function raw(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const all = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers };
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: all }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}
const auth = (s: Http, more: Record<string, string> = {}) => ({ Authorization: `Bearer ${s.token}`, ...more });

async function client(s: Http, extra: { headers?: Record<string, string>; search?: string } = {}): Promise<Client> {
  const c = new Client({ name: 'http-test', version: '0' });
  const url = new URL(`http://127.0.0.1:${s.port}/mcp${extra.search ?? ''}`);
  await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: auth(s, extra.headers) } }));
  return c;
}

test('a non-loopback bind without a token is refused at startup', () => {
  const serve = ['--project', sampleProject().root, '--recipe', 'yap', '--transport', 'http'];
  const r = runCli([...serve, '--host', '0.0.0.0', '--port', '0']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--host 0\.0\.0\.0 is not loopback: set --auth-token/);
});

describe('Streamable HTTP transport (one yap server)', () => {
  const p = sampleProject();
  setOverrides(p, 'frontend', ['search_tasks']); // task 3's discipline removes a tool for its connections
  let server: Http;
  before(async () => {
    server = await startHttp(['--recipe', 'yap', '--auth-token', 's3cret'], p);
  });
  after(() => server.child.kill('SIGTERM'));

  test('foreign Host or Origin is refused (403); no or wrong token is 401', async () => {
    assert.equal(server.token, 's3cret');
    assert.equal(await raw(server.port, auth(server, { Host: 'evil.example:80' })), 403);
    assert.equal(await raw(server.port, auth(server, { Origin: 'http://evil.example' })), 403);
    assert.equal(await raw(server.port, {}), 401);
    assert.equal(await raw(server.port, { Authorization: 'Bearer wrong' }), 401);
    assert.equal(await raw(server.port, auth(server, { Origin: `http://localhost:${server.port}` })), 200);
    // The 401 says why in its challenge (no bare "Bearer" that reads as "log in with OAuth") and its body.
    const r = await fetch(`http://127.0.0.1:${server.port}/mcp`, { method: 'POST', body: '{}' });
    assert.deepEqual([r.status, r.headers.get('www-authenticate')], [401, UNAUTHORIZED_CHALLENGE]);
    assert.match(
      UNAUTHORIZED_CHALLENGE,
      /^Bearer realm="ralph-mcp", error="invalid_token", error_description="[^"]+"$/,
    );
    assert.match(await r.text(), /missing or wrong bearer token \(Authorization: Bearer <token>/);
    const url = `http://127.0.0.1:${server.port}/mcp`;
    assert.ok(
      server.stderr().includes(`ralph-mcp: MCP over Streamable HTTP at ${url}; clients send the header`),
      server.stderr(),
    );
  });

  test('20 concurrent clients each complete 50 calls with correct results; a hidden tool is unknown', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => client(server)));
    try {
      for (const c of clients)
        assert.equal((await c.listTools()).tools.length, inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length);
      await Promise.all(
        clients.map(async (c, i) => {
          for (let k = 0; k < 50; k++) {
            const id = ((i + k) % 8) + 1;
            const r = (await c.callTool({ name: 'get_task', arguments: { id } })).structuredContent as any;
            assert.equal(r.task.id, id);
          }
        }),
      );
      const hidden = clients[0]!.callTool({ name: 'delete_task', arguments: { id: 8 } });
      await assert.rejects(hidden, /Unknown tool: delete_task/);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  test('the Ralph-Task header or ?task= narrows a connection to task 3: it may change task 3 only; others keep the launch scope', async () => {
    const narrowed = await client(server, { headers: { 'Ralph-Task': '3' } });
    const viaQuery = await client(server, { search: '?task=3' });
    const wide = await client(server);
    try {
      const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
      assert.ok(!(await names(narrowed)).includes('search_tasks'), "the task's discipline overrides apply");
      assert.ok((await names(wide)).includes('search_tasks'));
      assert.deepEqual(await names(viaQuery), await names(narrowed));
      const setStatus5 = { name: 'set_task_status', arguments: { id: 5, status: 'in_progress' } };
      for (const c of [narrowed, viaQuery]) {
        const out = await c.callTool(setStatus5);
        assert.equal(out.isError, true);
        assert.equal((out.structuredContent as any).error?.code, 'out_of_scope');
      }
      assert.equal(query<{ status: string }>(p, 'SELECT status FROM tasks WHERE id = 5')[0]!.status, 'pending');
      const ok = await narrowed.callTool({ name: 'update_task', arguments: { description: 'narrowed edit' } });
      assert.ok(!ok.isError, JSON.stringify(ok.structuredContent));
      assert.equal(
        query<{ description: string }>(p, 'SELECT description FROM tasks WHERE id = 3')[0]!.description,
        'narrowed edit',
        "the task id defaults to the connection's task",
      );
      const other = await wide.callTool(setStatus5);
      assert.ok(!other.isError, 'a connection without the header keeps the launch scope');
    } finally {
      await Promise.all([narrowed, viaQuery, wide].map((c) => c.close()));
    }
  });

  test('narrowing is refused (403, nothing served) when it would widen or is malformed', async () => {
    const [scoped, unscoped] = await Promise.all([
      startHttp(['--recipe', 'task_execution', '--task', '3'], p),
      startHttp(['--recipe', 'task_execution'], p),
    ]);
    try {
      const to = (task: string) => ({ 'Ralph-Task': task });
      const other = 'a task server cannot be switched to another task';
      assert.equal(await raw(scoped.port, auth(scoped, to('4'))), 403, other);
      assert.equal(await raw(scoped.port, auth(scoped, to('3'))), 200, 'its own task is fine');
      const widen = 'task_execution without --task changes no task: a task would widen it';
      assert.equal(await raw(unscoped.port, auth(unscoped, to('3'))), 403, widen);
      assert.equal(await raw(server.port, auth(server, to('abc'))), 403);
      assert.equal(await raw(server.port, auth(server, to('999'))), 403, 'unknown task');
      const c = await client(server, { headers: to('3') });
      await c.close();
    } finally {
      for (const s of [scoped, unscoped]) s.child.kill('SIGTERM');
    }
  });
});
