// The published artifact, end to end, as a user gets it: a clean clone → `npm pack` → install the tarball into an
// empty directory (dependencies from the registry only) → `npx ralph-mcp --version`, `npx ralph-mcp
// init`, and a real stdio MCP session through `npx ralph-mcp`. Run by .ci/run after `npm test`
// (separately, because installing compiles better-sqlite3 and takes a minute or two).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
// yap's tools as the test suite states them (test/helpers/spec.ts, built by npm test before this runs), on the
// normalized schema `init` makes: one list to keep, not a second copy here.
const { RECIPE_TOOLS, inSpecOrder } = await import(new URL('../dist/test/helpers/spec.js', import.meta.url).href);
const YAP_TOOLS = inSpecOrder(RECIPE_TOOLS.yap, 'normalized');
// The package: the bundle, its launcher, Bun's build of it with its bytecode (what the launcher loads
// under Bun), the docs and every file of schema/ (read from the checkout, so that a new schema file needs
// no edit here), nothing else.
const EXPECTED_FILES = [
  'LICENSE',
  'README.md',
  'dist/ralph-mcp.bun.js',
  'dist/ralph-mcp.bun.js.jsc',
  'dist/ralph-mcp.cjs',
  'dist/ralph-mcp.cjs.map',
  'dist/ralph-mcp.js',
  'dist/package.json',
  'package.json',
  ...readdirSync(join(REPO, 'schema')).map((f) => `schema/${f}`),
].sort();

const step = (name) => process.stderr.write(`test:pack: ${name}\n`);
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });

const work = mkdtempSync(join(tmpdir(), 'ralph-mcp-pack-'));
try {
  // From a clean clone of this repository's HEAD (no node_modules, no dist): `npm pack` itself must
  // install and build (prepack), or the package would ship without its bin.
  step('a clean clone of HEAD (no node_modules, no dist)');
  const clone = join(work, 'clone');
  run('git', ['clone', '--quiet', REPO, clone], work);
  assert.ok(!existsSync(join(clone, 'dist')) && !existsSync(join(clone, 'node_modules')));
  step('npm pack in it (prepack installs and builds; a minute or two)');
  const packOut = run('npm', ['pack', '--json', '--pack-destination', work], clone);
  // Lifecycle output may precede the JSON: the array starts at the last line that is "[".
  const [packed] = JSON.parse(packOut.slice(packOut.lastIndexOf('\n[') + 1 || 0));
  const files = packed.files.map((f) => f.path).sort();
  assert.deepEqual(
    files,
    EXPECTED_FILES,
    'the package holds the bundle, its map, its Bun build, schema/, README and licence, nothing else',
  );
  const tarball = join(work, packed.filename);

  step('install the tarball into an empty directory');
  const app = join(work, 'app');
  mkdirSync(app);
  const t0 = Date.now();
  run('npm', ['install', tarball], app);
  const installed = readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'));
  assert.ok(
    !installed.includes('@modelcontextprotocol') && !installed.includes('zod') && !installed.includes('yargs'),
    `bundled libraries are not installed again: ${installed.join(' ')}`,
  );
  step(`installed in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${installed.length} packages`);

  step('npx ralph-mcp --version');
  const version = run('npx', ['--no-install', 'ralph-mcp', '--version'], app).trim();
  assert.equal(version, JSON.parse(run('node', ['-p', 'JSON.stringify(require("./package.json").version)'], REPO)));

  step('npx ralph-mcp init');
  const project = join(work, 'project');
  mkdirSync(project);
  assert.match(
    run('npx', ['--no-install', 'ralph-mcp', 'init', '--project', project, '--title', 'Packed'], app),
    /created .*ralph\.db/,
  );

  step('a stdio session through npx ralph-mcp');
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no-install', 'ralph-mcp', '--project', project, '--recipe', 'yap'],
    cwd: app,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b) => (stderr += b));
  const client = new Client({ name: 'test-pack', version: '0' });
  try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, [...YAP_TOOLS].sort(), 'yap tool set');
    // init made Ralph's current schema with its default disciplines; a subsystem (feature) as Ralph's UI adds one.
    const db0 = new Database(join(project, '.ralph', 'db', 'ralph.db'));
    db0
      .prepare(
        "INSERT INTO subsystems (name, display_name, acronym, created) VALUES ('core', 'Core', 'CORE', '2026-01-01')",
      )
      .run();
    db0.close();
    const res = await client.callTool({
      name: 'create_task',
      arguments: { title: 'Packed task', feature: 'core', discipline: 'implementation' },
    });
    assert.ok(!res.isError, JSON.stringify(res));
    const id = res.structuredContent.task.id;
    const db = new Database(join(project, '.ralph', 'db', 'ralph.db'), { readonly: true });
    const row = db
      .prepare('SELECT d.title FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id WHERE t.id = ?')
      .get(id);
    assert.equal(row?.title, 'Packed task', 'the row is in the database');
    db.close();
  } catch (err) {
    throw new Error(`${err.message}\nserver stderr:\n${stderr}`);
  } finally {
    await client.close();
  }
  step('PASS');
} finally {
  rmSync(work, { recursive: true, force: true });
}
