import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI } from '../../helpers/env.js';
import { sampleProject } from '../../helpers/project.js';

/**
 * A session starts without V8's optimising compiler and turns it on at its first request that works on
 * the project (src/startup/v8Flags.ts): startup compiles nothing with TurboFan, pings and listings do not
 * turn it on, and a session serving calls gets its hot code optimised. Observed through V8's own
 * --trace-opt lines, which it prints on stdout (this test reads them there, beside the protocol).
 */
const project = sampleProject();
const optimised = (out: string) => (out.match(/^\[completed (optimizing|compiling) .*TURBOFAN/gm) ?? []).length;
const line = (m: object) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`;

function session() {
  const child = spawn(process.execPath, ['--trace-opt', CLI, '--project', project.root, '--recipe', 'yap'], {
    env: { ...process.env, RALPH_MCP_CACHE_DIR: 'off' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  /** Writes the lines, then resolves with stdout once the answer with `lastId` has arrived. */
  const send = (lines: string, lastId: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${lastId} in 30 s`)), 30_000);
      const check = () => {
        if (out.includes(`"id":${lastId}`)) {
          clearTimeout(timer);
          child.stdout.off('data', check);
          resolve(out);
        }
      };
      child.stdout.on('data', check);
      child.stdin.write(lines);
    });
  return { send, end: () => child.kill() };
}

test('no TurboFan during startup, pings and listings; turned on by the first tool call', async () => {
  const s = session();
  try {
    const init = line({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    let idle = `${init}${line({ method: 'notifications/initialized' })}${line({ id: 2, method: 'tools/list' })}`;
    for (let i = 0; i < 3000; i++) idle += line({ id: 10 + i, method: 'ping' });
    assert.equal(optimised(await s.send(idle, 3009)), 0, 'nothing optimised before the session worked on the project');
    let calls = '';
    for (let i = 0; i < 3000; i++)
      calls += line({ id: 10_000 + i, method: 'tools/call', params: { name: 'list_tasks', arguments: { limit: 1 } } });
    await s.send(calls, 12_999);
    // V8 optimises on background threads: give it a moment to finish what the calls made hot.
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(
      optimised(await s.send(line({ id: 20_000, method: 'ping' }), 20_000)) > 0,
      'the calls got optimised code',
    );
  } finally {
    s.end();
  }
});
