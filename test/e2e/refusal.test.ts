import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { inspect, inspectorError } from '../helpers/inspector.js';
import { sampleProject } from '../helpers/project.js';
import { serverCommand } from '../helpers/env.js';

/**
 * A refused stdio launch tells the client why (src/cli/refusal.ts): its initialize gets a JSON-RPC error
 * with the one line stderr has, then the server exits 2. Without an initialize, stdout stays empty.
 */
const project = sampleProject();

async function connectError(args: string[]): Promise<{ message: string; stderr: string }> {
  const transport = new StdioClientTransport({ ...serverCommand(args), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const client = new Client({ name: 'refusal-test', version: '1' });
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => undefined);
    return { message: (err as Error).message, stderr };
  }
  await client.close();
  throw new Error(`connected: ${args.join(' ')}`);
}

test('the SDK client sees the reason: a refused session (bad recipe) and a bad flag', async () => {
  const recipe = await connectError(['--project', project.root, '--recipe', 'nope']);
  assert.match(
    recipe.message,
    /^MCP error -32000: ralph-mcp refused to start: unknown recipe "nope"; valid recipes: braindump, /,
  );
  assert.match(recipe.stderr, /^ralph-mcp: error: unknown recipe "nope"; valid recipes: /m);
  const flag = await connectError(['--project', project.root, '--recipe', 'yap', '--bogus']);
  assert.match(flag.message, /ralph-mcp refused to start: Unknown argument: bogus \(see ralph-mcp --help\)/);
  const missing = await connectError(['--project', '/nonexistent/ralph-project', '--recipe', 'yap']);
  assert.match(missing.message, /ralph-mcp refused to start: .*\/nonexistent\/ralph-project/);
});

test('the MCP Inspector CLI shows the reason', async () => {
  const cmd = serverCommand(['--project', project.root, '--recipe', 'nope']);
  const r = await inspect([cmd.command, ...cmd.args], ['--method', 'tools/list']);
  assert.notEqual(r.code, 0);
  assert.match(inspectorError(r).message, /ralph-mcp refused to start: unknown recipe "nope"/);
});

test('no initialize (stdin closed): exit 2, one stderr line, nothing on stdout; a subcommand never waits', () => {
  const refused = serverCommand(['--project', project.root, '--recipe', 'nope']);
  const r = spawnSync(refused.command, refused.args, { input: '', encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1);
  // Other lines before initialize are skipped; only initialize is answered, with its own id.
  const lines = [
    '{"jsonrpc":"2.0","method":"notifications/something"}',
    'not json',
    '{"jsonrpc":"2.0","id":"x-7","method":"initialize","params":{}}',
  ];
  const answered = spawnSync(refused.command, refused.args, { input: `${lines.join('\n')}\n`, encoding: 'utf8' });
  assert.equal(answered.status, 2);
  const reply = JSON.parse(answered.stdout);
  assert.deepEqual(Object.keys(reply), ['jsonrpc', 'id', 'error']);
  assert.equal(reply.id, 'x-7');
  assert.equal(reply.error.code, -32000);
  const t0 = Date.now();
  const bogus = serverCommand(['init', '--bogus']);
  const sub = spawnSync(bogus.command, bogus.args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  assert.equal(sub.status, 2);
  assert.equal(sub.stdout, '');
  assert.ok(Date.now() - t0 < 2500, 'a subcommand refuses at once');
});
