import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ALL_TOOLS, inSpecOrder } from '../helpers/spec.js';
import { emptyProject, sampleProject, sql, tempDir } from '../helpers/project.js';
import { serverCommand } from '../helpers/env.js';
import { runCli, startSession } from '../helpers/server.js';

/** Every launch problem: non-zero exit, ONE line on stderr, NOTHING on stdout, before any MCP traffic. */
function assertRefused(args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = {}) {
  const r = runCli(args, env);
  assert.equal(r.status, 2, `exit status for ${args.join(' ')}`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `one line on stderr, got: ${r.stderr}`);
  assert.match(r.stderr, pattern);
}

describe('startup fails closed', () => {
  const p = sampleProject();

  test('unknown recipe: lists the valid ones', () =>
    assertRefused(
      ['--project', p.root, '--recipe', 'yapp'],
      /unknown recipe "yapp"; valid recipes: braindump, yap, ramble, discuss, task_execution, opus_review, enrichment/,
    ));

  test("unknown discipline: lists the project's", () =>
    assertRefused(
      ['--project', p.root, '--recipe', 'yap', '--discipline', 'fronted'],
      /unknown discipline "fronted"; disciplines in this project: backend, documentation, frontend, quality/,
    ));

  test('unknown task id', () =>
    assertRefused(['--project', p.root, '--recipe', 'task_execution', '--task', '999'], /unknown task id 999/));

  test('task id that is not a number: the typo is echoed', () =>
    assertRefused(
      ['--project', p.root, '--recipe', 'task_execution', '--task', 'seven'],
      /--task must be a positive integer task id, got "seven"/,
    ));

  test('a task whose discipline row is missing: says so, and how to proceed', () => {
    const q = sampleProject();
    const db = sql(q);
    db.pragma('foreign_keys = OFF');
    db.prepare("UPDATE tasks SET discipline = 'ghost' WHERE id = 5").run();
    db.close();
    assertRefused(
      ['--project', q.root, '--recipe', 'task_execution', '--task', '5'],
      /task 5's discipline "ghost" does not exist; pass --discipline NAME/,
    );
  });

  test('a log file that cannot be opened (a directory)', () => {
    const dir = tempDir();
    assertRefused(
      ['--project', p.root, '--recipe', 'yap', '--log-file', dir],
      new RegExp(`cannot open log file ${dir}: .*EISDIR`),
    );
  });

  test('missing database: names the path and suggests init', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ralph'));
    assertRefused(
      ['--project', dir, '--recipe', 'yap'],
      new RegExp(`database not found at ${join(dir, '.ralph', 'db', 'ralph.db')}; create it with: ralph-mcp init`),
    );
  });

  test('--db pointing nowhere', () =>
    assertRefused(['--project', p.root, '--db', join(p.root, 'nope.db')], /database not found at .*nope\.db/));

  test('a directory that is not a project', () =>
    assertRefused(['--project', tempDir(), '--recipe', 'yap'], /is not a Ralph project \(no \.ralph\/ folder\)/));

  test('a directory that does not exist', () =>
    assertRefused(
      ['--project', '/no/such/dir', '--recipe', 'yap'],
      /project directory \/no\/such\/dir does not exist/,
    ));

  test('RALPH_PROJECT is honoured (and checked)', () =>
    assertRefused(['--recipe', 'yap'], /project directory \/no\/such\/env-dir does not exist/, {
      RALPH_PROJECT: '/no/such/env-dir',
    }));

  test('a file that is not a database', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ralph', 'db'), { recursive: true });
    writeFileSync(
      join(dir, '.ralph', 'db', 'ralph.db'),
      'this is not sqlite, just text that is long enough to be read as a header block'.repeat(20),
    );
    assertRefused(['--project', dir, '--recipe', 'yap'], /cannot (open|read) database .*not a database/);
  });

  test("a SQLite file without Ralph's tables", () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ralph', 'db'), { recursive: true });
    const db = new Database(join(dir, '.ralph', 'db', 'ralph.db'));
    db.exec('CREATE TABLE other (x)');
    db.close();
    assertRefused(
      ['--project', dir, '--recipe', 'yap'],
      /is not a Ralph database \(missing tables: metadata, features/,
    );
  });

  test('a database from a newer Ralph (unknown user_version)', () => {
    const q = emptyProject();
    const db = new Database(q.dbPath);
    db.pragma('user_version = 2');
    db.close();
    assertRefused(
      ['--project', q.root, '--recipe', 'yap'],
      /has schema version 2; this ralph-mcp understands version 1/,
    );
  });

  test('unknown flag (a typo must not silently widen or change the session)', () =>
    assertRefused(['--project', p.root, '--recipes', 'yap'], /Unknown argument: recipes/));

  test('RALPH_MCP_BUSY_TIMEOUT_MS must be a whole number of milliseconds', () => {
    for (const bad of ['soon', '-1', '1.5', '900000'])
      assertRefused(
        ['--project', p.root],
        /^ralph-mcp: error: .*RALPH_MCP_BUSY_TIMEOUT_MS must be a whole number of milliseconds from 0 to 600000/,
        { RALPH_MCP_BUSY_TIMEOUT_MS: bad },
      );
  });
});

describe('startup succeeds', () => {
  test('no --recipe: the full suite, with a warning in the log', async () => {
    const s = await startSession(sampleProject());
    try {
      assert.equal((await s.toolNames()).length, inSpecOrder(ALL_TOOLS, 'legacy').length); // the sample is legacy
      await s.waitForStderr(/"msg":"session started"/);
      assert.match(s.stderr(), /no --recipe given: serving the full tool suite/);
    } finally {
      await s.close();
    }
  });

  test('--help and --version', () => {
    const v = runCli(['--version']);
    assert.equal(v.status, 0);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
    const h = runCli(['--help']);
    assert.equal(h.status, 0);
    assert.match(h.stdout, /--recipe/);
    assert.match(h.stdout, /ralph-mcp init/);
  });
});

test('init: creates the database, metadata row and empty state files; refuses to overwrite', () => {
  const dir = tempDir();
  const r = runCli(['init', '--project', dir, '--title', 'My Project']);
  assert.equal(r.status, 0, r.stderr);
  const db = new Database(join(dir, '.ralph', 'db', 'ralph.db'), { readonly: true });
  assert.equal(db.pragma('user_version', { simple: true }), 1);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  const meta = db.prepare('SELECT * FROM metadata').all() as Record<string, string>[];
  db.close();
  assert.equal(meta.length, 1);
  assert.equal(meta[0]!.project_title, 'My Project');
  assert.equal(meta[0]!.schema_version, '1.0');
  assert.match(meta[0]!.project_created!, /^\d{4}-\d{2}-\d{2}$/);
  for (const file of ['learnings.txt', 'progress.txt'])
    assert.equal(readFileSync(join(dir, '.ralph', file), 'utf8'), '');

  const again = runCli(['init', '--project', dir]);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /refusing to overwrite the existing database/);
});

test('on a terminal the server says on stderr that it waits for an MCP client, and how to connect one', async () => {
  const p = sampleProject();
  const { command, args } = serverCommand(['--project', p.root, '--recipe', 'yap']);
  const line = [command, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  // script(1) gives the server a pseudo-terminal for stdin, stdout and stderr (all read here as one).
  const child = spawn('script', ['-qfec', line, '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let seen = '';
  child.stdout.on('data', (b: Buffer) => (seen += b.toString()));
  try {
    for (const end = Date.now() + 15_000; !/Ctrl-C ends it/.test(seen); await new Promise((r) => setTimeout(r, 50)))
      assert.ok(Date.now() < end, `no hint on a terminal within 15 s:\n${seen}`);
    assert.match(seen, /this is an MCP server: it now waits for an MCP client on stdin/);
    assert.match(seen, new RegExp(`ralph-mcp config --project "${p.root}" --recipe yap --out \\.mcp\\.json`));
  } finally {
    child.kill('SIGKILL');
  }
  // Not on a terminal (a client's pipe), nothing of it: stderr holds the log alone.
  const piped = runCli(['--project', p.root, '--recipe', 'yap']);
  assert.doesNotMatch(piped.stderr, /waits for an MCP client/);
});
