import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { GENERATIONS } from '../src/store/records.js';
import { row } from './helpers/assertions.js';
import { CLI, EXE, UNDER_CI } from './helpers/env.js';
import { sampleProject, tempDir } from './helpers/project.js';

/**
 * The single executable (npm run build:exe; npm test builds it) serves what the bundle serves, run as a
 * user would run a downloaded binary: copied into a directory with no node_modules anywhere above it,
 * started with no PATH, and it leaves no copy of its SQLite addon behind.
 */
const skip = existsSync(EXE)
  ? false
  : UNDER_CI
    ? assert.fail(`no single executable at ${EXE}: under CI (RALPH_CI=1) npm test builds it`)
    : `no single executable at ${EXE} (npm run build:exe); skipping`;

async function connect(command: string, args: string[], cwd: string, env: Record<string, string>) {
  const client = new Client({ name: 'exe-test', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, env, stderr: 'ignore' }));
  return client;
}

describe('the single executable', { skip }, () => {
  for (const generation of GENERATIONS) {
    test(`${generation}: the bundle's session, from a directory without node_modules; a write read back in SQL; no addon copy left`, async () => {
      const home = tempDir('ralph-exe-');
      for (let dir = home; dir !== dirname(dir); dir = dirname(dir)) assert.ok(!existsSync(join(dir, 'node_modules')), `${dir} has node_modules`);
      const exe = join(home, 'ralph-mcp');
      copyFileSync(EXE, exe);
      chmodSync(exe, 0o755);
      const tmp = join(home, 'tmp');
      mkdirSync(tmp);
      const project = sampleProject(generation);
      const flags = ['--project', project.root, '--recipe', 'braindump'];

      const bundle = await connect(process.execPath, [CLI, ...flags], home, {});
      const viaBundle = await bundle.listTools();
      await bundle.close();

      const client = await connect(exe, flags, home, { TMPDIR: tmp, HOME: home });
      try {
        assert.deepEqual(await client.listTools(), viaBundle);
        const created = await client.callTool({ name: 'create_task', arguments: { feature: 'search', discipline: 'backend', title: 'Typo-tolerant search' } });
        assert.ok(!created.isError, JSON.stringify(created.structuredContent));
        const id = (created.structuredContent as { task: { id: number } }).task.id;
        const stored = generation === 'legacy' ? row(project, 'SELECT title FROM tasks WHERE id = ?', id) : row(project, 'SELECT d.title FROM runtime_tasks r JOIN task_details d ON d.id = r.details_id WHERE r.id = ?', id);
        assert.equal(stored?.title, 'Typo-tolerant search');
      } finally {
        await client.close();
      }
      assert.deepEqual(readdirSync(tmp), [], 'the addon copy is removed once loaded');
    });
  }
});
