import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { resultCopiesFor, resultTextMode } from '../../src/server/resultCopies.js';
import { sampleProject } from '../helpers/project.js';
import { serverCommand } from '../helpers/env.js';
import { runCli } from '../helpers/server.js';

/**
 * Which copies of a result each client gets (src/server/resultCopies.ts): Claude Code since 2.0.21 the
 * structured one alone, everyone else both; RALPH_MCP_RESULT_TEXT overrides; errors keep their text.
 */
test('resultCopiesFor: by client name and version, and by mode', () => {
  const cc = (version: string) => resultCopiesFor({ name: 'claude-code', version }, 'auto');
  assert.equal(cc('2.1.280'), 'structured');
  assert.equal(cc('2.0.21'), 'structured');
  assert.equal(cc('2.0.20'), 'both');
  assert.equal(cc('1.0.60'), 'both');
  assert.equal(cc('not a version'), 'both');
  assert.equal(resultCopiesFor({ name: 'Claude-Code ', version: '3.0' }, 'auto'), 'structured');
  for (const name of ['mcp-inspector', 'Visual Studio Code', 'cursor', 'ralph-mcp-tests'])
    assert.equal(resultCopiesFor({ name, version: '9.9.9' }, 'auto'), 'both', name);
  assert.equal(resultCopiesFor(undefined, 'auto'), 'both', 'before initialize');
  assert.equal(resultCopiesFor({ name: 'claude-code', version: '2.1.0' }, 'always'), 'both');
  assert.equal(resultCopiesFor({ name: 'cursor', version: '1' }, 'never'), 'structured');
  assert.equal(resultTextMode({}), 'auto');
  assert.equal(resultTextMode({ RALPH_MCP_RESULT_TEXT: ' Never ' }), 'never');
  assert.throws(
    () => resultTextMode({ RALPH_MCP_RESULT_TEXT: 'sometimes' }),
    /RALPH_MCP_RESULT_TEXT must be one of auto, always, never, got "sometimes"/,
  );
});

async function callAs(clientName: string, version: string, env: Record<string, string> = {}) {
  const p = sampleProject();
  const transport = new StdioClientTransport({
    ...serverCommand(['--project', p.root, '--recipe', 'yap']),
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: clientName, version });
  await client.connect(transport);
  try {
    return {
      ok: await client.callTool({ name: 'get_task', arguments: { id: 1 } }),
      err: await client.callTool({ name: 'get_task', arguments: { id: 999 } }),
    };
  } finally {
    await client.close();
  }
}

test('over stdio: Claude Code gets structuredContent alone, another client both copies, the same object; errors keep their text', async () => {
  const cc = await callAs('claude-code', '2.1.280');
  const other = await callAs('some-client', '1.0.0');
  assert.deepEqual(cc.ok.content, []);
  assert.equal((other.ok.content as { text: string }[]).length, 1);
  assert.deepEqual(JSON.parse((other.ok.content as { text: string }[])[0]!.text), other.ok.structuredContent);
  assert.deepEqual(cc.ok.structuredContent, other.ok.structuredContent);
  for (const r of [cc, other]) {
    assert.equal(r.err.isError, true);
    assert.match((r.err.content as { text: string }[])[0]!.text, /^not_found: /);
  }
  const forced = await callAs('claude-code', '2.1.280', { RALPH_MCP_RESULT_TEXT: 'always' });
  assert.equal((forced.ok.content as unknown[]).length, 1);
});

test('a malformed RALPH_MCP_RESULT_TEXT fails the launch with one line', () => {
  const p = sampleProject();
  const r = runCli(['--project', p.root, '--recipe', 'yap'], { RALPH_MCP_RESULT_TEXT: 'maybe' });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^ralph-mcp: error: RALPH_MCP_RESULT_TEXT must be one of auto, always, never, got "maybe"\n$/);
});
