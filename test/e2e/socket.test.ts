import assert from 'node:assert/strict';
import { RECIPE_TOOLS, inSpecOrder } from '../helpers/spec.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { serverCommand } from '../helpers/env.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';
import { connectSocket } from '../helpers/socketClient.js';

/** --transport socket: one shared server, one MCP session per connection. */
async function startSocketServer(p: Project, socket: string, flags: string[] = []): Promise<ChildProcess> {
  const cmd = serverCommand(['--project', p.root, '--transport', 'socket', '--socket', socket, ...flags]);
  const child = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const ready = () => existsSync(`${socket}.pid`) && readFileSync(`${socket}.pid`, 'utf8').trim() === String(child.pid);
  for (let waited = 0; !ready(); waited += 25) {
    if (waited > 10_000 || child.exitCode !== null)
      throw new Error(`socket server did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 25));
  }
  child.on('exit', () => assert.equal(out, '', 'nothing on stdout'));
  return child;
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

describe('Unix socket transport', () => {
  test('two agents at once, each its own session; owner-only socket; pid file; clean SIGTERM', async () => {
    const p = sampleProject();
    const socket = join(tempDir(), 'mcp.sock');
    const server = await startSocketServer(p, socket, ['--recipe', 'worker']);
    try {
      assert.equal(statSync(socket).mode & 0o777, 0o600);
      assert.equal(readFileSync(`${socket}.pid`, 'utf8').trim(), String(server.pid));
      const [a, b] = await Promise.all([connectSocket(socket), connectSocket(socket)]);
      assert.equal((await a.listTools()).tools.length, RECIPE_TOOLS.worker!.length);
      assert.equal((await b.listTools()).tools.length, RECIPE_TOOLS.worker!.length);
      const claimed = (await a.callTool({ name: 'claim_next_task', arguments: {} })).structuredContent as {
        task: { id: number };
      };
      assert.equal(claimed.task.id, 5);
      // B has claimed nothing: the claim belongs to A's session only.
      const r = await b.callTool({ name: 'set_task_status', arguments: { status: 'done' } });
      assert.equal(r.isError, true);
      assert.equal((r.structuredContent as { error: { code: string } }).error.code, 'invalid_argument');
      await Promise.all([a.close(), b.close()]);
      // A second server on the same path refuses to start.
      const second = runCli(['--project', p.root, '--recipe', 'worker', '--transport', 'socket', '--socket', socket]);
      assert.equal(second.status, 2);
      assert.match(second.stderr, new RegExp(`already listening on ${socket} \\(pid ${server.pid}\\)`));
    } finally {
      server.kill('SIGTERM');
      assert.equal(await exited(server), 0);
    }
    assert.ok(!existsSync(socket) && !existsSync(`${socket}.pid`), 'cleaned up');
  });

  test('a stale socket left by a killed server is recovered', async () => {
    const p = sampleProject();
    const socket = join(tempDir(), 'mcp.sock');
    const first = await startSocketServer(p, socket, ['--recipe', 'yap']);
    first.kill('SIGKILL');
    await exited(first);
    assert.ok(existsSync(socket), 'the dead server left its socket');
    const second = await startSocketServer(p, socket, ['--recipe', 'yap']);
    try {
      const c = await connectSocket(socket);
      assert.equal((await c.listTools()).tools.length, inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length);
      await c.close();
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }
  });

  test('--transport socket without --socket is refused', () => {
    const r = runCli(['--project', sampleProject().root, '--recipe', 'yap', '--transport', 'socket']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--transport socket needs --socket PATH/);
  });
});
