import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { serverCommand } from '../helpers/env.js';
import { sampleProject } from '../helpers/project.js';

/**
 * stdout full: a stdio client that reads none of its answers for a while, then reads. The answers (several
 * MB, more than the pipe and the server's bound on unsent bytes) wait for it and then all arrive, in
 * order. Under Node stdout blocks; under Bun the session writes through a FileSink and waits for its
 * drain (src/transport/bunStdio.ts).
 */
test('stdio: a client that reads nothing while answers pile up gets every one, in order, once it reads', async () => {
  const project = sampleProject();
  const cmd = serverCommand(['--project', project.root, '--recipe', 'yap', '--log-level', 'error']);
  const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdout.pause();
  const calls = 1000;
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } };
  const messages = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: init },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...Array.from({ length: calls }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'list_tasks', arguments: {} },
    })),
  ];
  child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  // Long enough for the server to fill the pipe and stop; nothing below depends on how long it took.
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const ids: number[] = [];
  let errors = 0;
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.on('exit', () => reject(new Error(`the server exited before answering: ${stderr}`)));
    // A server that stalls (waits for a drain that never comes) fails here rather than hanging the run.
    const stalled = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${ids.length} of ${calls} answers, then nothing for 30 s: ${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      bytes += chunk.length;
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const reply = JSON.parse(buffer.slice(0, nl)) as { id: number; result?: { isError?: boolean } };
        buffer = buffer.slice(nl + 1);
        if (reply.id === 0) continue;
        ids.push(reply.id);
        if (reply.result === undefined || reply.result.isError === true) errors++;
        if (ids.length === calls) {
          clearTimeout(stalled);
          resolve();
        }
      }
    });
    child.stdout.resume();
  });
  child.stdin.end();
  assert.equal(await exited, 0, stderr);
  assert.deepEqual(
    ids,
    Array.from({ length: calls }, (_, i) => i + 1),
  );
  assert.equal(errors, 0);
  assert.ok(bytes > 2 * 1024 * 1024, `the answers (${bytes} bytes) fill more than the pipe and the server's bound`);
});
