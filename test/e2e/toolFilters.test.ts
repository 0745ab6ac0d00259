import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { REPO, serverCommand } from '../helpers/env.js';
import { sampleProject, tempDir } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';
import { ALL_TOOLS, RECIPE_TOOLS, SIGNAL_VERBS } from '../helpers/spec.js';

/**
 * --read-only, --tools, --exclude-tools at the process edge: a bad name refuses the launch like any other
 * refusal (src/cli/refusal.ts), and plan, config and tools show what the flags do.
 */
const project = sampleProject('normalized');
/** The rows of `tools`' table, below its header. */
const tableRows = (out: string) => out.trim().split('\n').slice(1);

/** The tool names a config entry's server lists. */
async function listed(entry: { command: string; args: string[]; cwd?: string; env: Record<string, string> }) {
  const client = new Client({ name: 'filters-test', version: '0' });
  await client.connect(new StdioClientTransport({ ...entry, stderr: 'ignore' }));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}
const validatePlan = new Ajv2020.default({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync(join(REPO, 'schema', 'session-plan.schema.json'), 'utf8')),
);

describe('unknown tool names refuse the launch', () => {
  for (const [label, flags, pattern] of [
    ['--tools', ['--tools', 'get_task,get_taks'], /^--tools names unknown tool\(s\): get_taks; valid tools: /],
    ['--exclude-tools', ['--exclude-tools', 'nope'], /^--exclude-tools names unknown tool\(s\): nope; valid tools: /],
    // A repeated flag goes through yargs rather than the fast path: refused the same way.
    ['a repeated --tools', ['--tools', 'get_task', '--tools', 'nope'], /^--tools names unknown tool\(s\): nope; /],
    ['an empty --tools', ['--tools', ''], /^--tools needs at least one tool name \(a comma list\); valid tools: /],
  ] as const) {
    test(`${label}: exit 2, one stderr line listing every valid name, nothing on stdout`, () => {
      const r = runCli(['--project', project.root, '--recipe', 'yap', ...flags]);
      assert.equal(r.status, 2);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      const message = lines[0]!.replace(/^ralph-mcp: error: /, '');
      assert.match(message, pattern);
      assert.deepEqual(message.split('valid tools: ')[1]!.split(', '), ALL_TOOLS);
    });
  }

  test("a client's initialize gets the same line as a JSON-RPC error", () => {
    const cmd = serverCommand(['--project', project.root, '--recipe', 'yap', '--exclude-tools', 'nope']);
    const init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n';
    const r = spawnSync(cmd.command, cmd.args, { input: init, encoding: 'utf8' });
    assert.equal(r.status, 2);
    const reply = JSON.parse(r.stdout);
    assert.equal(reply.error.code, -32000);
    assert.equal(`ralph-mcp: error: ${reply.error.message.replace(/^ralph-mcp refused to start: /, '')}\n`, r.stderr);
  });

  test('plan and config refuse the same names', () => {
    for (const sub of ['plan', 'config']) {
      const r = runCli([sub, '--project', project.root, '--recipe', 'yap', '--tools', 'nope']);
      assert.equal(r.status, 2);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /--tools names unknown tool\(s\): nope; valid tools: list_tasks, /);
    }
  });
});

describe('plan, config and tools show the flags', () => {
  const flags = [
    '--read-only',
    '--exclude-tools',
    'get_project_info',
    '--tools',
    'get_task,read_progress,get_project_info',
  ];
  const task3 = ['--project', project.root, '--recipe', 'task_execution', '--task', '3'];

  test('plan --json and plan', () => {
    const r = runCli(['plan', ...task3, '--json', ...flags]);
    assert.equal(r.status, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as Record<string, any>;
    assert.ok(validatePlan(plan), JSON.stringify(validatePlan.errors));
    assert.deepEqual(plan.tool_filters, {
      read_only: true,
      tools: ['get_task', 'read_progress', 'get_project_info'],
      exclude_tools: ['get_project_info'],
    });
    const enabled = plan.enabled_tools.map((t: { name: string }) => t.name);
    assert.deepEqual(enabled, ['get_task', 'read_progress']);
    assert.ok(plan.disabled_tools.includes('set_task_status') && plan.disabled_tools.includes('get_project_info'));
    const text = runCli(['plan', '--project', project.root, '--recipe', 'yap', '--read-only']);
    assert.match(text.stdout, /\nnarrowed {4}--read-only \(these only remove tools\)\n/);
    const plain = runCli(['plan', '--project', project.root, '--recipe', 'yap', '--json']);
    assert.deepEqual(JSON.parse(plain.stdout).tool_filters, { read_only: false, tools: null, exclude_tools: [] });
  });

  test('config: the entry carries the flags, and the server it launches narrows the same way', async () => {
    const r = runCli(['config', ...task3, ...flags]);
    assert.equal(r.status, 0, r.stderr);
    const servers = JSON.parse(r.stdout).mcpServers;
    // Every signal writes: a read-only task session gets no signal server.
    assert.deepEqual(Object.keys(servers), ['ralph']);
    const { command, args } = servers.ralph;
    assert.deepEqual(args.slice(args.indexOf('--read-only')), [
      '--read-only',
      '--tools',
      'get_task,read_progress,get_project_info',
      '--exclude-tools',
      'get_project_info',
    ]);
    assert.deepEqual(await listed({ command, args, cwd: tempDir(), env: {} }), ['get_task', 'read_progress']);
    // Without --read-only the signal server stays, narrowed by the same flags.
    assert.ok(JSON.parse(runCli(['config', ...task3]).stdout).mcpServers['ralph-signals']);
    const withSignals = runCli(['config', ...task3, '--exclude-tools', 'stuck']);
    const entry = JSON.parse(withSignals.stdout).mcpServers['ralph-signals'];
    assert.deepEqual(entry.args.slice(-2), ['--exclude-tools', 'stuck']);
    const signals = SIGNAL_VERBS.filter((v) => v !== 'stuck');
    assert.deepEqual(await listed({ command: entry.command, args: entry.args, env: entry.env }), signals);
  });

  test('tools --read-only lists only read tools', () => {
    const all = runCli(['tools', '--read-only']);
    assert.equal(all.status, 0, all.stderr);
    const rows = tableRows(all.stdout);
    assert.ok(rows.length > 0 && rows.every((l) => /^\S+\s+\S+\s+read\s/.test(l)), all.stdout);
    assert.ok(!rows.some((l) => l.startsWith('delete_task ')));
    const worker = runCli(['tools', '--read-only', '--recipe', 'worker']);
    const names = tableRows(worker.stdout).map((l) => l.split(/\s+/)[0]);
    assert.ok(names.includes('get_task') && names.every((n) => RECIPE_TOOLS.worker!.includes(n!)));
    assert.ok(!names.includes('claim_next_task'));
  });
});
