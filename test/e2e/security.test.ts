import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { sampleProject } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';

/**
 * The command-line side of issue 7's refusals (their messages and the files left as they were are
 * test/contract/security.*.test.ts's and stateFiles.safety.test.ts's): every command that opens the
 * database refuses a drifted one alike, and a FIFO where a recipes file belongs cannot block a launch.
 */

/** The database file's hash, and the files beside it. */
const fileState = (p: Project) => ({
  hash: createHash('sha256').update(readFileSync(p.dbPath)).digest('hex'),
  files: readdirSync(dirname(p.dbPath)).sort(),
});

test('a drifted database: serve, plan, config and overrides exit 2 with one line; the files stay as they were', () => {
  const p = sampleProject();
  const db = new Database(p.dbPath);
  db.exec('ALTER TABLE tasks RENAME COLUMN hints TO tips');
  db.close();
  const before = fileState(p);
  for (const cmd of [
    ['--recipe', 'yap'],
    ['plan', '--recipe', 'yap'],
    ['config', '--recipe', 'yap'],
    ['overrides', '--discipline', 'frontend', '--disable', 'create_task'],
  ]) {
    const r = runCli([...cmd, '--project', p.root]);
    assert.equal(r.status, 2, `${cmd.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
    assert.match(
      lines[0]!,
      /^ralph-mcp: error: .*table tasks lacks column hints \(it has unknown column tips: renamed\?\)/,
    );
    assert.deepEqual(fileState(p), before, `${cmd.join(' ')}: the file and its folder are unchanged`);
  }
});

test('.ralph/mcp/recipes.json a FIFO: the launch fails at once instead of blocking', () => {
  // In a child process (runCli gives up after 20 s): a read that blocked in the runner would hang it.
  const p = sampleProject();
  mkdirSync(join(p.ralphDir, 'mcp'));
  execFileSync('mkfifo', [join(p.ralphDir, 'mcp', 'recipes.json')]);
  const t0 = Date.now();
  const r = runCli(['plan', '--project', p.root, '--recipe', 'yap']);
  assert.notEqual(r.status, null, 'the launch did not block');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /recipes\.json: refused: it is a FIFO/);
  assert.ok(Date.now() - t0 < 10_000, `failed promptly (${Date.now() - t0} ms)`);
});
