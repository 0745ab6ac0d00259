import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { GENERATIONS } from '../../../src/store/records.js';
import { row } from '../../helpers/assertions.js';
import { CLI, EXE, UNDER_CI } from '../../helpers/env.js';
import { sampleProject, tempDir } from '../../helpers/project.js';

/**
 * The single executable (npm run build:exe; npm test builds it) serves what the bundle serves, run as a
 * user would run a downloaded binary: copied into a directory with no node_modules anywhere above it,
 * started with no PATH. Its SQLite addon is kept in the cache directory (or, without one, loaded from a
 * temporary copy that is removed at once).
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
      for (let dir = home; dir !== dirname(dir); dir = dirname(dir))
        assert.ok(!existsSync(join(dir, 'node_modules')), `${dir} has node_modules`);
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
        const created = await client.callTool({
          name: 'create_task',
          arguments: { feature: 'search', discipline: 'backend', title: 'Typo-tolerant search' },
        });
        assert.ok(!created.isError, JSON.stringify(created.structuredContent));
        const id = (created.structuredContent as { task: { id: number } }).task.id;
        const stored =
          generation === 'legacy'
            ? row(project, 'SELECT title FROM tasks WHERE id = ?', id)
            : row(
                project,
                'SELECT d.title FROM runtime_tasks r JOIN task_details d ON d.id = r.details_id WHERE r.id = ?',
                id,
              );
        assert.equal(stored?.title, 'Typo-tolerant search');
      } finally {
        await client.close();
      }
      assert.deepEqual(readdirSync(tmp), [], 'nothing left in the temporary directory');
    });
  }

  /** One stdio session (initialize, tools/list) of the executable; its stderr (the log) and whether it answered. */
  const session = (exe: string, project: string, env: Record<string, string>) => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const r = spawnSync(exe, ['--project', project, '--recipe', 'yap'], {
      input: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
      env,
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { answered: r.stdout.includes('"id":2'), how: /"code_cache":"([^"]*)"/.exec(r.stderr)?.[1] };
  };

  test('the addon is cached owner-only and reused; a symlink in its place is replaced, never followed; no cache: a temporary copy', () => {
    const home = tempDir('ralph-exe-cache-');
    const tmp = join(home, 'tmp');
    mkdirSync(tmp);
    const project = sampleProject();
    const env = { HOME: home, TMPDIR: tmp };
    assert.deepEqual(session(EXE, project.root, env), { answered: true, how: 'snapshot, addon written' });
    const dir = join(home, '.cache', 'ralph-mcp');
    const [name, ...others] = readdirSync(dir);
    assert.match(name!, /^better_sqlite3-[0-9a-f]{32}\.node$/);
    assert.deepEqual(others, []);
    assert.equal(statSync(join(dir, name!)).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.deepEqual(session(EXE, project.root, env), { answered: true, how: 'snapshot, addon cached' });

    // Someone else's file in its place: a symlink is never loaded through; the copy is written anew.
    const elsewhere = join(home, 'elsewhere.node');
    writeFileSync(elsewhere, 'not an addon');
    rmSync(join(dir, name!));
    symlinkSync(elsewhere, join(dir, name!));
    assert.deepEqual(session(EXE, project.root, env), { answered: true, how: 'snapshot, addon written' });
    assert.ok(lstatSync(join(dir, name!)).isFile(), 'the symlink was replaced by the file');

    assert.deepEqual(session(EXE, project.root, { ...env, RALPH_MCP_CACHE_DIR: 'off' }), {
      answered: true,
      how: 'snapshot, addon temporary',
    });
    assert.deepEqual(readdirSync(tmp), [], 'the temporary copy is removed once loaded');
  });
});
