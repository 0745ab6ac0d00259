/**
 * `npm run demo`: makes a sample Ralph project with `init` + real content, then drives two real
 * sessions of the built server through the MCP SDK client and prints what happens.
 *
 *   npm run demo                 # project in a fresh temp dir
 *   npm run demo -- ./my-demo    # project in ./my-demo (kept; must not exist yet)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpError, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSampleProject } from './sampleProject.js';

// The artifact users run (compiled here to dist/scripts/demo.js): dist/ralph-mcp.js.
const CLI = fileURLToPath(new URL('../ralph-mcp.js', import.meta.url));
const out = (s = '') => process.stdout.write(`${s}\n`);
const short = (v: unknown, max = 400) => {
  const s = JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
};

async function session(project: string, flags: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--project', project, '--log-level', 'warn', ...flags],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'ralph-mcp-demo', version: '1.0.0' });
  await client.connect(transport);
  out(`\n━━ ralph-mcp ${flags.join(' ')}`);
  const { tools } = await client.listTools();
  out(`tools/list → ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    try {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      out(`\n▸ ${name} ${JSON.stringify(args)}`);
      out(r.isError ? `  ✗ ${short(r.structuredContent)}` : `  ✓ ${short(r.structuredContent)}`);
      return r;
    } catch (err) {
      out(`\n▸ ${name} ${JSON.stringify(args)}`);
      out(`  ✗ JSON-RPC error ${(err as McpError).code}: ${(err as Error).message}`);
      return undefined;
    }
  };
  return { client, call, close: () => client.close() };
}

const target = process.argv[2]
  ? resolve(process.argv[2])
  : join(mkdtempSync(join(tmpdir(), 'ralph-mcp-demo-')), 'recipe-box');
// Ralph's current (normalized) schema, as `ralph-mcp init` makes it today.
const project = createSampleProject(target, 'Recipe Box', 'normalized');
out(`Sample project created with ralph-mcp init + sample rows (Ralph's current schema): ${project.root}`);
out(`  database: ${project.dbPath}`);

// 1. A task_execution session for task 3: the minimal surface, scoped to one task.
const exec = await session(project.root, ['--recipe', 'task_execution', '--task', '3']);
out(`\ninstructions the agent receives:\n${(exec.client.getInstructions() ?? '').replace(/^/gm, '  | ')}`);
await exec.call('get_task');
await exec.call('add_task_comment', { body: 'Form done; server 422 errors are shown per field.' });
await exec.call('set_task_status', { status: 'done' });
await exec.call('append_progress', { text: 'Task 3 done: recipe editor form with dynamic ingredient rows.' });
await exec.call('set_task_status', { id: 4, status: 'done' }); // another task: out_of_scope
await exec.call('create_task', { feature: 'recipes', discipline: 'frontend', title: 'sneaky' }); // hidden in this recipe
await exec.close();

// 2. An opus_review session: wider, but update_task is narrowed to id/priority/description.
const review = await session(project.root, ['--recipe', 'opus_review']);
await review.call('get_project_progress');
await review.call('update_task', { id: 5, priority: 'high' });
await review.call('update_task', { id: 5, title: 'not allowed here' });
await review.call('append_feature_learning', {
  feature_name: 'recipes',
  text: 'always store quantities in grams and convert only for display',
});
await review.call('append_feature_learning', {
  feature_name: 'recipes',
  text: 'Keep the ingredient parser pure; test it without the database',
});
await review.close();

out(`\nServe this project yourself:\n  node ${CLI} --project ${project.root} --recipe yap`);
