import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { CLI } from './helpers/env.js';
import { sampleProject } from './helpers/project.js';
import { runCli } from './helpers/server.js';

/** --transport http: Streamable HTTP at /mcp, loopback, Host/Origin checks, bearer token, many clients. */
async function startHttp(flags: string[]): Promise<{ child: ChildProcess; port: number }> {
  const p = sampleProject();
  const child = spawn(process.execPath, [CLI, '--project', p.root, '--transport', 'http', '--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /"msg":"listening"/.test(err) && /"port":(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`http server exited ${code}: ${err}`)));
  });
  child.on('exit', () => assert.equal(out, '', 'nothing on stdout'));
  return { child, port };
}

function raw(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function client(port: number, token?: string): Promise<Client> {
  const c = new Client({ name: 'http-test', version: '0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
  );
  return c;
}

describe('Streamable HTTP transport', () => {
  let server: { child: ChildProcess; port: number };
  before(async () => {
    server = await startHttp(['--recipe', 'yap', '--auth-token', 's3cret']);
  });
  after(() => server.child.kill('SIGTERM'));

  test('foreign Host or Origin is refused (403); no or wrong token is 401', async () => {
    const auth = { Authorization: 'Bearer s3cret' };
    assert.equal(await raw(server.port, { ...auth, Host: 'evil.example:80' }), 403);
    assert.equal(await raw(server.port, { ...auth, Origin: 'http://evil.example' }), 403);
    assert.equal(await raw(server.port, {}), 401);
    assert.equal(await raw(server.port, { Authorization: 'Bearer wrong' }), 401);
    assert.equal(await raw(server.port, { ...auth, Origin: `http://localhost:${server.port}` }), 200);
  });

  test('20 concurrent clients each complete 50 calls with correct results', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => client(server.port, 's3cret')));
    try {
      for (const c of clients) assert.equal((await c.listTools()).tools.length, 9);
      await Promise.all(
        clients.map(async (c, i) => {
          for (let k = 0; k < 50; k++) {
            const id = ((i + k) % 8) + 1;
            const r = (await c.callTool({ name: 'get_task', arguments: { id } })).structuredContent as { task: { id: number } };
            assert.equal(r.task.id, id);
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  test('a hidden tool is unknown over HTTP too', async () => {
    const c = await client(server.port, 's3cret');
    try {
      await assert.rejects(c.callTool({ name: 'delete_task', arguments: { id: 8 } }), /Unknown tool: delete_task/);
    } finally {
      await c.close();
    }
  });
});

test('a non-loopback bind without a token is refused at startup', () => {
  const r = runCli(['--project', sampleProject().root, '--recipe', 'yap', '--transport', 'http', '--host', '0.0.0.0', '--port', '0']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--host 0\.0\.0\.0 is not loopback: set --auth-token/);
});
