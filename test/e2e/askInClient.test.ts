import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { serverCommand } from '../helpers/env.js';
import { query, sampleProject } from '../helpers/project.js';

/**
 * The built server over stdio, asked by the SDK's Client that declares elicitation: a blocking ask is
 * put to the person and their answer recorded and returned. With the line transport's shortcut
 * (transport/directCalls.ts) on, which leaves this call to the SDK, and off: the same outcome.
 */
describe('a blocking ask answered in the client, over stdio', () => {
  for (const generation of ['legacy', 'normalized'] as const) {
    for (const direct of ['on', 'off'] as const) {
      test(`${generation}, direct calls ${direct}`, async () => {
        const p = sampleProject(generation);
        const transport = new StdioClientTransport({
          ...serverCommand(['--project', p.root, '--recipe', 'signals', '--task', '3']),
          env: { ...(process.env as Record<string, string>), RALPH_MCP_DIRECT_CALLS: direct },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'e2e-elicit', version: '0' }, { capabilities: { elicitation: {} } });
        const messages: string[] = [];
        client.setRequestHandler(ElicitRequestSchema, (req) => {
          messages.push(req.params.message);
          return { action: 'accept', content: { answer: 'ounces' } };
        });
        await client.connect(transport);
        try {
          const r = (await client.callTool({
            name: 'ask',
            arguments: { question: 'Grams or ounces?', options: ['grams', 'ounces'], blocking: true },
          })) as CallToolResult;
          assert.equal(r.isError, undefined, JSON.stringify(r));
          const out = r.structuredContent as { signal_id: number; answer: string };
          assert.equal(out.answer, 'ounces');
          assert.equal(messages.length, 1);
          assert.match(messages[0]!, /Grams or ounces\?/);
          const table = generation === 'normalized' ? 'task_signals' : 'ralph_mcp_task_signals';
          assert.deepEqual(query(p, `SELECT answer FROM ${table} WHERE id = ?`, out.signal_id), [{ answer: 'ounces' }]);
        } finally {
          await client.close();
        }
      });
    }
  }
});
