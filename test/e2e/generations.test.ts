import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { projectPaths, type Project } from '../../src/domain/project.js';
import { query, sampleProject, tempDir } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';

/**
 * The commands around Ralph's two schema generations as processes: `init`, `migrate` and `doctor` with their
 * exit codes and output, and a launch refused for its database. What they compute is checked in-process by
 * test/contract/generations.test.ts and test/contract/migrate.test.ts.
 */

const fileState = (p: Project) => ({
  hash: createHash('sha256').update(readFileSync(p.dbPath)).digest('hex'),
  files: readdirSync(dirname(p.dbPath)).sort(),
});

const tables = (p: Project) =>
  query<{ name: string }>(p, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name);

test('init: the normalized schema with default disciplines unless told otherwise, and what to run next', () => {
  const dir = tempDir();
  const r = runCli(['init', '--project', dir, '--title', 'Fresh']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /created .*ralph\.db \(normalized schema, default disciplines\)/);
  assert.match(r.stdout, /next: ralph-mcp --project .* --recipe braindump/);
  const p = projectPaths(dir);
  assert.ok(tables(p).includes('runtime_tasks'));
  assert.deepEqual(query(p, 'SELECT count(*) AS n FROM disciplines'), [{ n: 8 }]);
  const old = projectPaths(tempDir());
  assert.equal(runCli(['init', '--project', old.root, '--schema', 'legacy', '--no-disciplines']).status, 0);
  assert.ok(tables(old).includes('tasks') && !tables(old).includes('runtime_tasks'));
  assert.deepEqual(query(old, 'SELECT count(*) AS n FROM disciplines'), [{ n: 0 }]);
});

test('migrate: exit 0 naming the backup; doctor then passes on the normalized schema; again: nothing to do', () => {
  const p = sampleProject('legacy');
  const r = runCli(['migrate', '--project', p.root]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /migrated .* to Ralph's normalized schema/);
  const backup = readdirSync(dirname(p.dbPath)).filter((f) => /^ralph\.db\.legacy-.+\.bak$/.test(f));
  assert.equal(backup.length, 1);
  assert.ok(r.stdout.includes(join(dirname(p.dbPath), backup[0]!)), 'stdout names the backup');
  const d = runCli(['doctor', '--project', p.root]);
  assert.equal(d.status, 0, d.stdout + d.stderr);
  assert.match(d.stdout, /all checks passed/);
  assert.match(d.stdout, /^✓ schema\s+normalized schema/m);
  assert.deepEqual(
    d.stdout.split('\n').filter((l) => l.startsWith('✗') || l.startsWith('–')),
    [],
  );
  // doctor's read-only connection may leave -wal/-shm: a connection that writes folds them away first.
  const db = new Database(p.dbPath);
  db.prepare('SELECT count(*) FROM sqlite_master').get();
  db.close();
  const before = fileState(p);
  const again = runCli(['migrate', '--project', p.root]);
  assert.equal(again.status, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /already has Ralph's normalized schema.*nothing to migrate/);
  assert.deepEqual(fileState(p), before, 'the database file and its folder are unchanged');
});

test('migrate refused: exit 2, nothing on stdout, one error naming the problem, nothing changed', () => {
  const p = sampleProject('legacy');
  const db = new Database(p.dbPath);
  db.exec("UPDATE tasks SET status = 'weird' WHERE id = 5");
  db.close();
  const before = fileState(p);
  const r = runCli(['migrate', '--project', p.root]);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^ralph-mcp: error: nothing was changed/);
  assert.match(r.stderr, /task 5 has status "weird"/);
  assert.deepEqual(fileState(p), before, 'the database file and its folder are unchanged');
});

test('migrate --completed-from: refused without it (exit 2, naming the option and the tasks); exit 0 with it', () => {
  const p = sampleProject('legacy');
  const db = new Database(p.dbPath);
  db.exec('UPDATE tasks SET completed = NULL WHERE id IN (1, 2)');
  db.close();
  const before = fileState(p);
  const refused = runCli(['migrate', '--project', p.root]);
  assert.equal(refused.status, 2, refused.stdout + refused.stderr);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /^ralph-mcp: error: nothing was changed/);
  assert.match(refused.stderr, /2 done task\(s\) have no completed date \(tasks 1, 2\): run migrate again with/);
  assert.match(refused.stderr, /--completed-from updated\|created\|now/);
  assert.deepEqual(fileState(p), before, 'the database file and its folder are unchanged');
  const wrong = runCli(['migrate', '--project', p.root, '--completed-from', 'yesterday']);
  assert.equal(wrong.status, 2, wrong.stdout + wrong.stderr);
  assert.match(wrong.stderr, /completed-from.*yesterday/s);
  assert.deepEqual(fileState(p), before);
  const r = runCli(['migrate', '--project', p.root, '--completed-from', 'created']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^ {2}completed dates: 2 done task\(s\) had none and took it from --completed-from created/m);
  assert.match(r.stdout, /: tasks 1, 2 \(recorded in ralph_mcp_audit row \d+/);
  assert.match(r.stdout, /^ {2}ralph-mcp's own records: /m);
  assert.match(r.stdout, /^ {2}your own objects: none/m);
});

test('a launch on a database that is neither generation: exit 2, one stderr line, the files as they were', () => {
  const p = sampleProject('normalized');
  const db = new Database(p.dbPath);
  db.exec('CREATE TABLE features (name TEXT PRIMARY KEY)');
  db.close();
  const before = fileState(p);
  const r = runCli(['--project', p.root, '--recipe', 'yap']);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /is not a Ralph database \(it also holds tables of the other generation: features\)/);
  assert.deepEqual(fileState(p), before);
});
