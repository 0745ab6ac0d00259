import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import {
  BUN,
  BUN_EXE_BUILT,
  CLI,
  EXE_BUILT,
  FIXTURE_SKIP,
  FIXTURES,
  launchOfRuntime,
  REPO,
  SERVER_RUNTIME,
  UNDER_BUN,
} from '../helpers/env.js';
import { fixtureProject, query, sampleProject, setOverrides, sql, tempDir } from '../helpers/project.js';
import { runCli, startSession } from '../helpers/server.js';
import { RECIPES, RECIPE_TOOLS } from '../helpers/spec.js';

const json = (text: string) => JSON.parse(text) as Record<string, any>;
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
const validatePlan = ajv.compile(JSON.parse(readFileSync(join(REPO, 'schema', 'session-plan.schema.json'), 'utf8')));
const overridesOf = (p: Project, discipline: string) =>
  query<{ o: string | null }>(p, 'SELECT mcp_tool_overrides AS o FROM disciplines WHERE name = ?', discipline)[0]!.o;
const setServers = (p: Project, discipline: string, servers: unknown) => {
  const db = sql(p);
  db.prepare('UPDATE disciplines SET mcp_servers = ? WHERE name = ?').run(JSON.stringify(servers), discipline);
  db.close();
};

describe('plan: the same code path as serve', () => {
  const project = sampleProject();
  setOverrides(project, 'documentation', ['set_task_status', 'create_task', 'search_tasks']);
  // The whole matrix under Node; under Bun and the executable one launch (the plan is the same code).
  const combos = RECIPES.flatMap((recipe) => ['quality', 'documentation'].map((discipline) => [recipe, discipline]));
  for (const [recipe, discipline] of SERVER_RUNTIME === 'node' ? combos : combos.slice(1, 2)) {
    test(`${recipe} × ${discipline}: plan --json names exactly the served tools and instructions`, async () => {
      const flags = ['--project', project.root, '--recipe', recipe!, '--discipline', discipline!];
      const r = runCli(['plan', ...flags, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const plan = json(r.stdout);
      assert.ok(validatePlan(plan), JSON.stringify(validatePlan.errors));
      const names = plan.enabled_tools.map((t: { name: string }) => t.name);
      const s = await startSession(project, flags.slice(2));
      try {
        assert.deepEqual(names, await s.toolNames());
        assert.equal(plan.instructions, s.client.getInstructions());
      } finally {
        await s.close();
      }
      if (discipline === 'documentation') assert.ok(!names.includes('set_task_status'));
    });
  }

  test('a task plan (discipline from the task) is human-readable by default', () => {
    const r = runCli(['plan', '--project', project.root, '--recipe', 'task_execution', '--task', '3']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /discipline {2}frontend \(the task's\)/);
    assert.match(r.stdout, new RegExp(`enabled tools \\(${RECIPE_TOOLS.task_execution!.length}\\):`));
    assert.match(
      r.stdout,
      /instructions:\n {2}\| Values in double quotes below are JSON strings.*\n {2}\| Ralph project "Recipe Box"/,
    );
  });

  test('same fail-closed errors as serve', () => {
    const r = runCli(['plan', '--project', project.root, '--recipe', 'nope', '--json']);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^ralph-mcp: error: unknown recipe "nope"; valid recipes: /);
  });
});

describe('config: the client configuration that launches the session', () => {
  const project = sampleProject();
  const shadcn = {
    name: 'shadcn-ui',
    command: 'npx',
    args: ['-y', '@anthropic-ai/shadcn-ui-mcp'],
    env: { DEBUG: '0' },
  };
  setServers(project, 'frontend', [shadcn]);

  for (const format of ['claude', 'vscode', 'cursor'] as const) {
    test(`${format}: the documented shape, discipline servers merged, and the ralph entry starts from anywhere`, async () => {
      const flags = ['--recipe', 'task_execution', '--task', '3', '--discipline', 'frontend', '--format', format];
      const r = runCli(['config', '--project', project.root, ...flags]);
      assert.equal(r.status, 0, r.stderr);
      const cfg = json(r.stdout);
      const key = format === 'vscode' ? 'servers' : 'mcpServers';
      assert.deepEqual(Object.keys(cfg), [key]);
      const servers = cfg[key];
      assert.deepEqual(Object.keys(servers), ['ralph', 'shadcn-ui']);
      for (const s of Object.values(servers) as Record<string, any>[]) {
        assert.equal(typeof s.command, 'string');
        assert.ok(Array.isArray(s.args) && s.args.every((a: unknown) => typeof a === 'string'));
        if (format === 'vscode') assert.equal(s.type, 'stdio');
      }
      assert.deepEqual(servers['shadcn-ui'].args, shadcn.args);
      assert.deepEqual(servers['shadcn-ui'].env, shadcn.env);
      const ralph = servers.ralph;
      // The runtime and its script (none for the single executable), then the flags: every path absolute.
      const flagsAt = ralph.args.indexOf('--project');
      assert.ok(
        ralph.command.startsWith('/') &&
          ralph.args.slice(0, flagsAt).every((a: string) => a.startsWith('/')) &&
          ralph.args[flagsAt + 1].startsWith('/'),
        'absolute paths',
      );
      // Run it exactly as written, from an unrelated directory, with no PATH.
      const client = new Client({ name: 'config-test', version: '0' });
      const { command, args } = ralph;
      await client.connect(new StdioClientTransport({ command, args, cwd: tempDir(), env: {}, stderr: 'ignore' }));
      try {
        assert.match(client.getInstructions() ?? '', /Task: #3/);
        assert.equal((await client.listTools()).tools.length, RECIPE_TOOLS.task_execution!.length);
      } finally {
        await client.close();
      }
    });
  }

  test('--runtime: node or bun on the bundle, the executable built beside it, or the fastest found; each entry serves', async () => {
    const entry = (runtime: string, env: NodeJS.ProcessEnv = {}) => {
      const r = runCli(['config', '--project', project.root, '--recipe', 'yap', '--runtime', runtime], env);
      const ralph = r.status === 0 ? (json(r.stdout).mcpServers.ralph as { command: string; args: string[] }) : null;
      return {
        status: r.status,
        stderr: r.stderr,
        launch: ralph && { command: ralph.command, args: ralph.args.slice(0, -4) },
      };
    };
    const toolsVia = async (launch: { command: string; args: string[] }) => {
      const client = new Client({ name: 'runtime-test', version: '0' });
      const args = [...launch.args, '--project', project.root, '--recipe', 'yap'];
      const { command } = launch;
      await client.connect(new StdioClientTransport({ command, args, cwd: tempDir(), env: {}, stderr: 'ignore' }));
      try {
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    if (SERVER_RUNTIME === 'exe' || SERVER_RUNTIME === 'bunexe') {
      // A single executable has no bundle beside it: it can only name itself.
      for (const runtime of ['exe', 'auto']) assert.deepEqual(entry(runtime).launch, launchOfRuntime());
      for (const runtime of ['node', 'bun']) {
        const r = entry(runtime);
        assert.equal(r.status, 2);
        assert.match(r.stderr, new RegExp(`--runtime ${runtime}: this is a single executable`));
      }
      return;
    }
    // PATHs: one with bun (a link to the devDependency's), one with node's folder, one with neither.
    const withBun = tempDir();
    symlinkSync(realpathSync(BUN), join(withBun, 'bun'));
    const none = tempDir();
    const bunOnPath = { command: UNDER_BUN ? realpathSync(BUN) : join(withBun, 'bun'), args: [CLI] };
    const nodeOnPath = { command: UNDER_BUN ? join(dirname(process.execPath), 'node') : process.execPath, args: [CLI] };
    assert.deepEqual(entry('bun', { PATH: withBun }).launch, bunOnPath);
    assert.deepEqual(entry('node', { PATH: dirname(process.execPath) }).launch, nodeOnPath);
    const missing = entry(UNDER_BUN ? 'node' : 'bun', { PATH: none });
    assert.deepEqual(
      [missing.status, missing.stderr],
      [
        2,
        `ralph-mcp: error: --runtime ${UNDER_BUN ? 'node' : 'bun'}: no ${UNDER_BUN ? 'node' : 'bun'} found on PATH\n`,
      ],
    );
    // The executables a build puts beside the bundle, Bun's first: what exe and auto name when present.
    const built = [BUN_EXE_BUILT, EXE_BUILT].find((f) => existsSync(f));
    const exe = entry('exe', { PATH: none });
    if (built) assert.deepEqual(exe.launch, { command: built, args: [] });
    else assert.match(exe.stderr, /--runtime exe: no single executable beside the bundle/);
    const fastest = existsSync(BUN_EXE_BUILT) ? { command: BUN_EXE_BUILT, args: [] } : bunOnPath;
    assert.deepEqual(entry('auto', { PATH: withBun }).launch, fastest);
    // Each runs from an unrelated directory with no PATH, serving what this runtime serves.
    const tools = await toolsVia(launchOfRuntime());
    for (const launch of [bunOnPath, nodeOnPath, ...(built ? [{ command: built, args: [] }] : [])])
      assert.deepEqual(await toolsVia(launch), tools, launch.command);
  });

  test('--out writes the file atomically (no temp file left behind)', () => {
    const dir = tempDir();
    const out = join(dir, 'mcp.json');
    const r = runCli(['config', '--project', project.root, '--recipe', 'yap', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.deepEqual(Object.keys(json(readFileSync(out, 'utf8')).mcpServers), ['ralph']);
    assert.deepEqual(readdirSync(dir), ['mcp.json']);
  });

  const twoNamedA = [
    { name: 'a', command: 'x' },
    { name: 'a', command: 'y' },
  ];
  for (const [label, servers, pattern] of [
    ['a discipline server named ralph', [{ name: 'ralph', command: 'x' }], /is named "ralph", which is reserved/],
    ['a server without a command', [{ name: 'a' }], /\[0\] has no "command"/],
    ['args that are not strings', [{ name: 'a', command: 'x', args: [1] }], /has "args" that is not a list of strings/],
    ['a repeated name', twoNamedA, /\[1\] repeats the name "a"/],
    ['not an array', { name: 'a' }, /is not a JSON array/],
  ] as const) {
    test(`refused: ${label}`, () => {
      const p = sampleProject();
      setServers(p, 'backend', servers);
      const r = runCli(['config', '--project', p.root, '--recipe', 'yap', '--discipline', 'backend']);
      assert.equal(r.status, 2);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, pattern);
    });
  }
});

test('tools: the registry as a table', () => {
  const r = runCli(['tools']);
  assert.equal(r.status, 0);
  assert.match(r.stdout.trim().split('\n')[0]!, /^TOOL\s+CATEGORY\s+KIND\s+RECIPES$/);
  assert.match(
    r.stdout,
    /\nupdate_task\s+tasks\s+destructive\s+yap, task_execution\*, opus_review\*, enrichment\*, worker\*\n/,
  );
  assert.match(r.stdout, /\ndelete_feature\s+features\s+destructive\s+\(none: full suite only\)\n/);
  assert.equal(runCli(['tools', '--recipe', 'discuss']).stdout.trim().split('\n').length, 6);
  assert.equal(runCli(['tools', '--recipe', 'nope']).status, 2);
});

describe('overrides', () => {
  test('set, show, clear on a fixture (adding the column on first use); serve honours it', {
    skip: FIXTURE_SKIP,
  }, async () => {
    const p = fixtureProject('04-desktop-dev.db');
    const overrides = (...flags: string[]) =>
      runCli(['overrides', '--project', p.root, '--discipline', 'documentation', ...flags]);
    const hasColumn = () =>
      query(p, "SELECT 1 FROM pragma_table_info('disciplines') WHERE name = 'mcp_tool_overrides'").length === 1;
    assert.equal(hasColumn(), false);
    const show = overrides();
    assert.equal(show.status, 0, show.stderr);
    assert.match(show.stdout, /additional_disabled = \(none\)/);
    assert.equal(hasColumn(), false, 'showing does not alter the table');

    const set = overrides('--disable', 'set_task_status,create_task');
    assert.equal(set.status, 0, set.stderr);
    assert.match(set.stdout, /additional_disabled = create_task, set_task_status/);
    assert.match(
      set.stdout,
      /\nyap +11 tools: list_tasks, get_task, update_task, search_tasks, add_dependency, remove_dependency, dependency_problems, blocked_tasks, list_features, list_disciplines, get_project_info\n/,
    );
    assert.equal(hasColumn(), true);
    assert.deepEqual(json(overridesOf(p, 'documentation')!), {
      additional_disabled: ['create_task', 'set_task_status'],
    });
    const s = await startSession(p, ['--recipe', 'yap', '--discipline', 'documentation']);
    assert.ok(!(await s.toolNames()).includes('set_task_status'));
    await s.close();

    assert.match(overrides('--enable', 'create_task').stdout, /additional_disabled = set_task_status\n/);
    assert.match(overrides('--clear').stdout, /additional_disabled = \(none\)/);
    assert.equal(overridesOf(p, 'documentation'), null);
  });

  test('unknown tool names and disciplines are refused, and change nothing', () => {
    const p = sampleProject();
    const bad = runCli(['overrides', '--project', p.root, '--discipline', 'quality', '--disable', 'set_task_stauts']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown tool\(s\): set_task_stauts/);
    assert.equal(overridesOf(p, 'quality'), null);
    assert.match(runCli(['overrides', '--project', p.root, '--discipline', 'qa']).stderr, /unknown discipline "qa"/);
  });
});

describe('doctor', () => {
  for (const file of FIXTURES) {
    test(`passes on ${file}`, { skip: FIXTURE_SKIP }, () => {
      const r = runCli(['doctor', '--project', fixtureProject(file).root]);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /✓ integrity +ok\n/);
      assert.match(r.stdout, /all checks passed\n$/);
      // The runtime serving it, and so which SQLite driver (run under Bun too: scripts/run-tests.mjs).
      assert.match(r.stdout, UNDER_BUN ? /\n✓ bun +\d+\.\d+\.\d+ \(SQLite through bun:sqlite\)\n/ : /\n✓ node +v\d+\./);
    });
  }

  test('points a legacy project to migrate; leaves the database folder as it found it', () => {
    for (const schema of ['legacy', 'normalized']) {
      const dir = tempDir();
      assert.equal(runCli(['init', '--project', dir, '--schema', schema]).status, 0);
      const files = () => readdirSync(join(dir, '.ralph', 'db')).sort();
      const before = files();
      const r = runCli(['doctor', '--project', dir]);
      assert.equal(r.status, 0, r.stdout);
      assert.deepEqual(files(), before, 'no -wal or -shm left behind');
      const hint = `✓ schema today +Ralph now writes the normalized schema; \`ralph-mcp migrate --project "${dir}"\``;
      if (schema === 'legacy') assert.match(r.stdout, new RegExp(hint));
      else assert.doesNotMatch(r.stdout, /schema today/);
    }
  });

  test('fails on a missing database, naming it', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ralph'));
    const r = runCli(['doctor', '--project', dir]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /✗ database +not found at .*ralph\.db \(ralph-mcp init creates it\)/);
  });

  test('fails on a bad override, naming the discipline and the tool', () => {
    const p = sampleProject();
    setOverrides(p, 'quality', ['no_such_tool']);
    const r = runCli(['doctor', '--project', p.root]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /✗ overrides quality +.*unknown tool\(s\): no_such_tool/);
  });

  test('fails on a corrupted file', () => {
    const p = sampleProject();
    const bytes = readFileSync(p.dbPath);
    // Scribble over the pages after the header: the file still opens, its b-trees do not check out.
    for (let i = 4096; i < bytes.length; i += 7) bytes[i] = (bytes[i]! * 31 + 7) & 0xff;
    writeFileSync(p.dbPath, bytes);
    for (const suffix of ['-wal', '-shm']) if (existsSync(p.dbPath + suffix)) writeFileSync(p.dbPath + suffix, '');
    const r = runCli(['doctor', '--project', p.root]);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stdout, /✗ (integrity|schema|database) /);
    assert.match(r.stdout, /the file is damaged: stop Ralph and every ralph-mcp session on it, then put back a copy/);
  });
});
