import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, lstatSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { migrateProject } from '../../src/cli/migrate.js';
import { StartupError } from '../../src/domain/errors.js';
import { projectPaths, type Project } from '../../src/domain/project.js';
import { initProject } from '../../src/store/open/init.js';
import { type CompletedFrom, migrateDatabase } from '../../src/store/migrate/index.js';
import { openInProc, type InProcSession } from './harness.js';
import { alter, assertDoctorPasses, fileState, sha256 } from './support.fixtures.js';
import { assertToday, row, rows, type AnyRow } from '../helpers/assertions.js';
import { FIXTURE_SKIP, HEAD_FIXTURE_SKIP, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { fixtureProject, query, sampleProject, tempDir } from '../helpers/project.js';
import {
  counts,
  normalizedInvariants,
  ralphComments,
  ralphDiscipline,
  ralphFeature,
  ralphTask,
  type RalphTask,
} from '../helpers/ralphRead.js';

/**
 * `ralph-mcp migrate`: a legacy project moved to the normalized schema Ralph's head opens. What moved
 * is checked independently of the migration's own verification: Ralph's read rules (ralphRead), SQLite's
 * own checks, counts and every task read back the way Ralph reads it on both files, the backup byte for
 * byte, and the migrated project served. Every refusal leaves the file and its folder exactly as they were.
 * In-process: `migrateProject` returns what the command prints, or throws the StartupError it exits 2 with
 * (the process itself is test/e2e/generations.test.ts's).
 */

const BACKUP_RE = /^ralph\.db\.legacy-.+\.bak$/;

function backupOf(p: Project): string {
  const found = readdirSync(dirname(p.dbPath)).filter((f) => BACKUP_RE.test(f));
  assert.equal(found.length, 1, `one backup beside the database: ${found.join(', ')}`);
  return join(dirname(p.dbPath), found[0]!);
}

/** -wal, -shm or journal files beside the database or its backup. */
const sideFiles = (p: Project) =>
  readdirSync(dirname(p.dbPath)).filter((f) => f.startsWith('ralph.db-') || /-(wal|shm)$/.test(f));

/** Rows of a query on any database file (read-only, closed after). */
function readAll<T>(dbPath: string, sql: string): T[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const names = (dbPath: string, sql: string) => readAll<{ name: string }>(dbPath, sql).map((r) => r.name);
const tablesOf = (dbPath: string) => names(dbPath, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
/** Rows as arrays of their values, in the order the query selects them. */
const valuesOf = (p: Project, sql: string) => rows(p, sql).map((r) => Object.values(r));
const texts = (list: { text: string }[]) => list.map((l) => l.text);
const withoutId = <T extends { id?: unknown }>({ id: _id, ...rest }: T) => rest;

/** A task as both generations carry it: without what the legacy schema has no column for. */
function comparable(t: RalphTask | undefined) {
  if (!t) return t;
  const { template_id: _t, agent: _a, model: _m, effort: _e, thinking: _th, ...rest } = t;
  return rest;
}

/**
 * The database at rest, as a clean shutdown leaves it: the last read-write connection's close folds the
 * WAL into the file and removes -wal/-shm (what read-only readers such as ralphRead leave behind).
 */
function atRest(p: Project): void {
  const db = new Database(p.dbPath);
  db.prepare('SELECT count(*) FROM sqlite_master').get(); // a connection that reads nothing never opens the WAL
  db.close();
  assert.deepEqual(sideFiles(p), [], 'no -wal/-shm at rest');
}

/** A migrate refused with a message matching `pattern` that changed nothing: the file and its folder as they were. */
function refusedMigration(p: Project, pattern: RegExp, completedFrom?: CompletedFrom): string {
  const before = fileState(p);
  let err: unknown;
  try {
    migrateProject(p.root, undefined, completedFrom);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof StartupError && err.exitCode === 2, `migrate should refuse (exit 2): ${String(err)}`);
  assert.match(err.message, pattern);
  assert.deepEqual(fileState(p), before, 'the database file and its folder are unchanged');
  return err.message;
}

/** migrate on a project that already has the current schema: it says so, and changes nothing. */
function upToDate(p: Project): void {
  const before = fileState(p);
  assert.match(migrateProject(p.root), /already has Ralph's normalized schema.*nothing to migrate/);
  assert.deepEqual(fileState(p), before, 'the database file and its folder are unchanged');
}

type Flags = Parameters<typeof openInProc>[1];
/** Runs `fn` on a new session on `p` (with `flags`, or the full suite), closed after. */
async function withSession<T>(p: Project, flags: Flags, fn: (s: InProcSession) => Promise<T>, opts = {}): Promise<T> {
  const s = await openInProc(p, flags, opts);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

describe("migrate: Ralph's 04-desktop-dev (legacy) to the normalized schema", { skip: FIXTURE_SKIP }, () => {
  test('everything moves, checks out, reads back the same, and is served', async () => {
    const p = fixtureProject('04-desktop-dev.db');
    const preHash = sha256(p.dbPath); // the fixture's WAL is empty: the main file is the whole database

    const out = migrateProject(p.root);
    assert.match(out, /migrated .* to Ralph's normalized schema/);
    // The files first (any later connection may make -wal/-shm of its own).
    const backup = backupOf(p);
    assert.ok(out.includes(backup), 'the output names the backup');
    const beside = readdirSync(dirname(p.dbPath)).sort();
    assert.deepEqual(beside, ['ralph.db', basename(backup)].sort(), 'no -wal/-shm (or temp files) beside either');
    assert.equal(sha256(backup), preHash, 'the backup is the original, byte for byte');
    // Ralph's reader opens files read-only, which leaves -wal/-shm behind: it reads a copy of the backup.
    const legacy = join(tempDir(), 'legacy.db');
    copyFileSync(backup, legacy);
    assert.equal(sha256(legacy), preHash);

    // The new database: normalized, Ralph's rules hold, SQLite's own checks pass.
    const tables = tablesOf(p.dbPath);
    assert.ok(['runtime_tasks', 'task_details', 'task_signals'].every((t) => tables.includes(t)));
    const left = ['tasks', 'features', 'task_comments'].filter((t) => tables.includes(t));
    assert.deepEqual(left, [], `no legacy tables left: ${tables.join(', ')}`);
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    assert.deepEqual(query(p, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    assert.deepEqual(query(p, 'PRAGMA foreign_key_check'), []);

    // Counts: the same everywhere, plus one `blocked` signal per legacy task with a blocked_by.
    const legacyBlocked = readAll<{ id: number; blocked_by: string }>(
      legacy,
      "SELECT id, blocked_by FROM tasks WHERE blocked_by IS NOT NULL AND blocked_by <> '' ORDER BY id",
    );
    assert.ok(legacyBlocked.length > 0, 'the fixture has blocked_by values (the case is covered)');
    const before = counts(legacy);
    assert.ok(
      before.tasks === 20 && before.comments > 0 && before.dependencies > 0 && before.criteria > 0 && before.tags > 0,
    );
    assert.deepEqual(counts(p.dbPath), { ...before, comments: before.comments + legacyBlocked.length });
    const blockedSignal = 'SELECT "on", kind, detail FROM task_signals WHERE task_id = ? AND verb = \'blocked\'';
    for (const b of legacyBlocked) {
      const signal = rows(p, blockedSignal, b.id);
      assert.deepEqual(signal, [{ on: b.blocked_by, kind: 'external', detail: null }], `task ${b.id}'s blocked_by`);
    }

    // Every task, comment, feature and discipline reads back as Ralph reads it on each side.
    const ids = query<{ id: number }>(p, 'SELECT id FROM runtime_tasks ORDER BY id').map((x) => x.id);
    assert.equal(ids.length, 20);
    for (const id of ids) {
      assert.deepEqual(comparable(ralphTask(p.dbPath, id)), comparable(ralphTask(legacy, id)), `task ${id}`);
      assert.equal(ralphTask(p.dbPath, id)!.template_id, null);
      const was = ralphComments(legacy, id);
      const now = ralphComments(p.dbPath, id).slice(0, was.length);
      const bodies = (list: typeof was) => list.map((c) => [c.body, c.created]);
      assert.deepEqual(bodies(now), bodies(was), `comments of task ${id}, in order`);
      for (const c of now) {
        assert.ok(
          c.generation === 'normalized' && c.verb === 'learned' && c.kind === 'discovery' && c.scope === 'task',
          `comment ${c.id} is a learned signal`,
        );
      }
    }
    for (const name of names(legacy, 'SELECT name FROM features ORDER BY name')) {
      const { status: _s, learnings: la, ...a } = ralphFeature(legacy, name)!;
      const { status, learnings: lb, ...b } = ralphFeature(p.dbPath, name)!;
      assert.deepEqual(b, a, `feature ${name}`);
      assert.equal(status, 'active');
      assert.deepEqual(texts(lb), texts(la), `learnings of ${name}`);
    }
    for (const name of names(legacy, 'SELECT name FROM disciplines ORDER BY name')) {
      const { agent: _a, model: _m, effort: _e, thinking: _t, ...a } = ralphDiscipline(legacy, name)!;
      const { agent: _a2, model: _m2, effort: _e2, thinking: _t2, ...b } = ralphDiscipline(p.dbPath, name)!;
      assert.deepEqual(b, a, `discipline ${name}`);
    }

    // The migrated project is served.
    assertDoctorPasses(p.root);
    await withSession(p, { recipe: 'yap' }, async (s) => {
      const title = 'Created after the migration';
      const task = { feature: 'search', discipline: 'backend', title, depends_on: [13] };
      const created = await s.ok('create_task', { ...task, acceptance_criteria: ['a', 'b'] });
      assert.equal(created.task.id, 21, 'ids go on from the legacy ones');
      assert.deepEqual((await s.ok('get_task', { id: created.task.id })).task, created.task);
      assert.deepEqual(comparable(ralphTask(p.dbPath, 21))?.title, title);
      const order = 'SELECT criterion_order FROM task_acceptance_criteria WHERE task_id = 21 ORDER BY criterion_order';
      assert.deepEqual(rows(p, order), [{ criterion_order: 0 }, { criterion_order: 1 }]);
      const old = await s.ok('get_task', { id: 14 });
      assert.equal(old.task.blocked_by, 'Waiting for search index (#13)', 'a legacy blocked_by still reads as one');
    });
    assert.deepEqual(normalizedInvariants(p.dbPath), []);

    // A second run (the project at rest: no -wal/-shm left by the readers above): nothing to migrate, nothing changed.
    atRest(p);
    upToDate(p);
    assert.equal(sha256(backup), preHash);
  });
});

/** A deep copy without any `id` key, for comparing what differs only in ids the new file assigns. */
const withoutIds = (value: unknown) => JSON.parse(JSON.stringify(value, (k, v) => (k === 'id' ? undefined : v)));

/** What a session shows of each of these features (with their learnings) and tasks, and of every discipline. */
async function shown(s: InProcSession, features: string[], taskIds: number[]) {
  const each = <T>(list: T[], get: (x: T) => Promise<any>) => Promise.all(list.map(get));
  const disciplines = (await s.ok('list_disciplines', {})).disciplines.map((d: { name: string }) => d.name);
  return {
    features: await each(features, (name) => s.ok('get_feature', { name })),
    learnings: await each(features, (name) => s.ok('get_feature_learnings', { feature_name: name })),
    tasks: await each(taskIds, (id) => s.ok('get_task', { id })),
    disciplines: await each(disciplines, (name) => s.ok('get_discipline', { name })),
  };
}

describe('migrate: the sample project', () => {
  test('keeps learnings with hit_count, source and review (ralph_mcp_learning_meta), tasks and comments', async () => {
    const p = sampleProject('legacy');
    // Before: what a legacy session shows.
    const { featureNames, taskIds, was } = await withSession(p, {}, async (s) => {
      const featureNames: string[] = (await s.ok('list_features', {})).features.map((f: { name: string }) => f.name);
      const taskIds: number[] = (await s.ok('list_tasks', {})).tasks.map((t: { id: number }) => t.id);
      return { featureNames, taskIds, was: await shown(s, featureNames, taskIds) };
    });
    const preHash = sha256(p.dbPath);
    const before = counts(p.dbPath);

    migrateProject(p.root);
    assert.equal(sha256(backupOf(p)), preHash);
    assert.deepEqual(sideFiles(p), []);
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    // Task 7 had a blocked_by: one more signal.
    assert.deepEqual(counts(p.dbPath), { ...before, comments: before.comments + 1 });

    const now = await withSession(p, {}, async (s) => {
      assert.equal(s.store.generation, 'normalized');
      return shown(s, featureNames, taskIds);
    });
    // Knowledge entries get ids on the new file (a legacy learning, an item of a JSON list, has none).
    const message = 'every feature, with its learnings and other knowledge, as before';
    assert.deepEqual(withoutIds(now.features), withoutIds(was.features), message);
    assert.deepEqual(withoutIds(now.learnings), withoutIds(was.learnings));
    for (const [i, id] of taskIds.entries()) {
      // `template` (where a task was pulled from) exists on the normalized generation only.
      const { template, ...task } = now.tasks[i].task;
      assert.equal(template, null);
      assert.deepEqual(task, was.tasks[i].task, `task ${id}`);
      const comments = was.tasks[i].comments.map(withoutId);
      assert.deepEqual(now.tasks[i].comments.slice(0, comments.length).map(withoutId), comments, `comments of ${id}`);
    }
    assert.deepEqual(now.disciplines, was.disciplines);
    // Where the learnings' own fields live now.
    assert.equal(was.features[featureNames.indexOf('recipes')].feature.learnings.length, 2);
    const meta = valuesOf(
      p,
      `SELECT c.body, c.category, m.source, m.hit_count, m.reviewed, m.review_count
       FROM subsystem_comments c JOIN ralph_mcp_learning_meta m ON m.comment_id = c.id
       JOIN subsystems s ON s.id = c.subsystem_id WHERE s.name = 'recipes' ORDER BY c.id`,
    );
    assert.deepEqual(meta, [
      ['Validate ingredient quantities on the server', 'learning', 'auto', 1, 0, 0],
      ['Always store quantities in grams, convert only for display', 'learning', 'human', 3, 1, 1],
    ]);
    const grams = row(p, "SELECT created FROM subsystem_comments WHERE body LIKE 'Always store%'")!;
    assert.equal(grams.created, '2026-01-03T10:00:00Z');
    assertDoctorPasses(p.root);
    // A second run: nothing to do.
    atRest(p);
    upToDate(p);
  });

  test("signal verbs kept on legacy become Ralph's own signals, in place of their comments", async () => {
    const p = sampleProject('legacy');
    const flags = { recipe: 'signals', task: '3', sessionId: 'legacy-signals-1' };
    const { flagged, commentsBefore } = await withSession(p, flags, async (s) => {
      const question = { question: 'Metric or imperial?', options: ['metric', 'imperial'], blocking: true };
      const asked = await s.ok('ask', question);
      await s.ok('done', { summary: 'Form shipped' });
      const flagged = await s.ok('flag', { what: 'Slow save', severity: 'warning', category: 'performance' });
      s.store.write(() => s.store.signals.answerQuestion(asked.signal_id, 'metric'));
      return { flagged, commentsBefore: s.store.comments.comments(3).map(withoutId) };
    });
    // A person deletes the comment of one signal: the signal itself still moves.
    const flagComment = row(p, 'SELECT comment_id FROM ralph_mcp_task_signals WHERE id = ?', flagged.signal_id)!;
    alter(p, `DELETE FROM task_comments WHERE id = ${Number(flagComment.comment_id)}`);
    migrateProject(p.root);
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    const signals = valuesOf(
      p,
      `SELECT verb, question, options, blocking, answer, summary, what, severity, category FROM task_signals
       WHERE session_id = 'legacy-signals-1' ORDER BY id`,
    );
    assert.deepEqual(signals, [
      ['ask', 'Metric or imperial?', 'metric\nimperial', 1, 'metric', null, null, null, null],
      ['done', null, null, null, null, 'Form shipped', null, null, null],
      ['flag', null, null, null, null, null, 'Slow save', 'warning', 'performance'],
    ]);
    const sessionOf = 'SELECT kind, started_by, task_id, status FROM agent_sessions WHERE id = ?';
    const session = rows(p, sessionOf, flags.sessionId);
    assert.deepEqual(session, [{ kind: 'task_execution', started_by: 'agent', task_id: 3, status: 'finished' }]);
    // No signal became a plain learned comment as well.
    const learned = row(
      p,
      `SELECT count(*) AS n FROM task_signals WHERE task_id = 3 AND verb = 'learned'
       AND text IN ('Form shipped', 'Metric or imperial?')`,
    )!;
    assert.equal(learned.n, 0);
    await withSession(p, {}, async (s) => {
      const notFlag = (c: Record<string, unknown>) => c.body !== '[warning, performance] Slow save';
      const shownBefore = commentsBefore.filter(notFlag);
      const comments = (await s.ok('get_task', { id: 3 })).comments.map(withoutId);
      const readBack = comments.slice(0, shownBefore.length + 1).filter(notFlag);
      assert.deepEqual(readBack, shownBefore, 'the comments read the same');
      const { questions } = await s.ok('get_answers', { task_id: 3 });
      const answers = questions.map((q: Record<string, unknown>) => [q.question, q.answer]);
      assert.deepEqual(answers, [['Metric or imperial?', 'metric']]);
    });
  });

  // Backup names have one-second stamps: a run in the same second as the migration (a script that runs
  // migrate twice) must still look at the database first. The backups it would find are put in place
  // here so that the test is deterministic.
  test('migrate on a migrated project says nothing to migrate even within the second of the migration', () => {
    const p = projectPaths(tempDir());
    initProject(p.root);
    const now = Date.now();
    for (let s = -2; s <= 15; s++) {
      const stamp = new Date(now + s * 1000).toISOString().replace(/[-:]|\.\d{3}/g, '');
      writeFileSync(`${p.dbPath}.legacy-${stamp}.bak`, 'a backup made by a migration a moment ago');
    }
    upToDate(p);
  });

  test('an extra column without data is no problem', () => {
    const p = sampleProject('legacy');
    alter(p, 'ALTER TABLE tasks ADD COLUMN assignee TEXT');
    migrateProject(p.root);
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
  });
});

describe('migrate refuses what has no home in the normalized schema, and changes nothing', () => {
  const CASES: Record<string, [statements: string, refusal: RegExp]> = {
    "a task with status 'weird'": ["UPDATE tasks SET status = 'weird' WHERE id = 5", /task 5 has status "weird"/],
    'a done task without completed': [
      'UPDATE tasks SET completed = NULL WHERE id = 1',
      /task 1 is done but has no completed date/,
    ],
    'depends_on naming a missing task': [
      "UPDATE tasks SET depends_on = '[3, 99]' WHERE id = 4",
      /task 4 depends on task 99, which does not exist/,
    ],
    'a task JSON column that is not an array': [
      'UPDATE tasks SET tags = \'{"ui": true}\' WHERE id = 3',
      /tasks\.tags of task 3 is not a JSON array/,
    ],
    'a feature JSON column that is not an array': [
      "UPDATE features SET context_files = '\"src/api/recipes.ts\"' WHERE name = 'recipes'",
      /features\.context_files of feature "recipes" is not a JSON array/,
    ],
    'a learning that is a number': [
      "UPDATE features SET learnings = '[\"fine\", 42]' WHERE name = 'search'",
      /features\.learnings of feature "search"\[1\] is neither a string nor an object with a text/,
    ],
    'a learning object without text': [
      'UPDATE features SET learnings = \'[{"note": "no text"}]\' WHERE name = \'auth\'',
      /features\.learnings of feature "auth"\[0\] is neither a string nor an object with a text/,
    ],
    'two features whose names differ only in case': [
      "INSERT INTO features (name, display_name, acronym) VALUES ('Search', 'Search (old)', 'SRC2')",
      /features "search" and "Search" differ only in case/,
    ],
    'an extra column holding data': [
      "ALTER TABLE tasks ADD COLUMN assignee TEXT; UPDATE tasks SET assignee = 'bob' WHERE id = 3",
      /tasks\.assignee holds values in 1 row/,
    ],
    "a person's index on Ralph's legacy table": [
      'CREATE INDEX my_titles ON tasks(title)',
      /your index "my_titles" is on tasks, a table of Ralph's .* that the normalized schema replaces/,
    ],
    "a person's view reading Ralph's legacy table": [
      "CREATE VIEW my_open AS SELECT id, title FROM tasks WHERE status = 'pending'",
      /your view "my_open" names tasks, table\(s\) of Ralph's/,
    ],
    "a person's trigger (on their own table) writing Ralph's table": [
      `CREATE TABLE my_log (x TEXT);
       CREATE TRIGGER my_log_ai AFTER INSERT ON my_log BEGIN UPDATE tasks SET hints = NEW.x WHERE id = 1; END`,
      /your trigger "my_log_ai" names tasks/,
    ],
    "a person's table with a foreign key into Ralph's table": [
      'CREATE TABLE my_links (task_id INTEGER REFERENCES tasks(id), url TEXT)',
      /your table "my_links" has a foreign key into tasks/,
    ],
    "a person's virtual table": [
      'CREATE VIRTUAL TABLE my_search USING fts5(body)',
      /your table "my_search" is a virtual table/,
    ],
    "a person's object named like one of Ralph's normalized schema": [
      'CREATE TABLE my_t (x); CREATE INDEX idx_task_tags_task ON my_t(x)',
      /your index "idx_task_tags_task" has the name of an object of Ralph's normalized schema/,
    ],
    'a table of ralph-mcp that this version does not know, holding rows': [
      "CREATE TABLE ralph_mcp_future (x TEXT); INSERT INTO ralph_mcp_future VALUES ('kept by a newer ralph-mcp')",
      /ralph_mcp_future holds 1 row\(s\) this ralph-mcp does not know how to carry/,
    ],
  };
  for (const [label, [statements, pattern]] of Object.entries(CASES)) {
    test(label, () => {
      const p = sampleProject('legacy');
      alter(p, statements);
      assert.match(refusedMigration(p, pattern), /nothing was changed/);
    });
  }

  test('several problems at once are all named', () => {
    const p = sampleProject('legacy');
    alter(p, "UPDATE tasks SET status = 'weird' WHERE id = 5; UPDATE tasks SET depends_on = '[77]' WHERE id = 6");
    const err = refusedMigration(p, /2 value\(s\)/);
    assert.match(err, /task 5 has status "weird"/);
    assert.match(err, /task 6 depends on task 77/);
  });

  // A refusal changes no file: not the -wal/-shm a read-only reader (Ralph's UI, sqlite3 -readonly) left
  // beside the database either.
  test('a refused migrate leaves the -wal/-shm already beside the database alone', () => {
    const p = sampleProject('legacy');
    alter(p, "UPDATE tasks SET status = 'weird' WHERE id = 5");
    const reader = new Database(p.dbPath, { readonly: true });
    reader.prepare('SELECT count(*) FROM tasks').get();
    reader.close();
    assert.ok(readdirSync(dirname(p.dbPath)).includes('ralph.db-wal'), 'precondition: the reader left a -wal');
    refusedMigration(p, /task 5 has status "weird"/);
  });

  test('an already-normalized project (init default): nothing to migrate', () => {
    upToDate(initProject(tempDir()));
  });

  test("an already-normalized project (Ralph's head fixture): nothing to migrate", { skip: HEAD_FIXTURE_SKIP }, () => {
    upToDate(fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR));
  });
});

describe('migrate carries every value as it was written', () => {
  test('full timestamps in created, updated and completed arrive unchanged; the store reads their day', async () => {
    const p = sampleProject('legacy');
    alter(
      p,
      `UPDATE tasks SET created = '2026-01-01T10:00:00Z', updated = '2026-01-02 08:30:00',
         completed = '2026-01-04T16:45:12.345Z' WHERE id = 1;
       UPDATE tasks SET created = '2026-01-03T09:00:00+02:00', updated = '2026-01-05T07:00:00Z' WHERE id = 3`,
    );
    const legacy = join(tempDir(), 'legacy.db');
    copyFileSync(p.dbPath, legacy);
    migrateProject(p.root);
    // Byte for byte where Ralph reads them (crates/sqlite-db tasks.rs: Option<String>), on both tables.
    for (const id of [1, 2, 3, 4, 5, 6, 7, 8])
      assert.deepEqual(comparable(ralphTask(p.dbPath, id)), comparable(ralphTask(legacy, id)), `task ${id}`);
    const dates = valuesOf(
      p,
      'SELECT id, created, updated, completed FROM runtime_tasks WHERE id IN (1, 3) ORDER BY id',
    );
    assert.deepEqual(dates, [
      [1, '2026-01-01T10:00:00Z', '2026-01-02 08:30:00', '2026-01-04T16:45:12.345Z'],
      [3, '2026-01-03T09:00:00+02:00', '2026-01-05T07:00:00Z', null],
    ]);
    const details = valuesOf(
      p,
      `SELECT d.created, d.updated FROM runtime_tasks r JOIN task_details d ON d.id = r.details_id
       WHERE r.id IN (1, 3) ORDER BY r.id`,
    );
    const runtimeDates = dates.map(([, created, updated]) => [created, updated]);
    assert.deepEqual(details, runtimeDates, 'the same on task_details');
    // ralphRead's date rules are stricter than Ralph's code (which reads any text): they flag exactly these.
    const broken = normalizedInvariants(p.dbPath).filter((v) => !/2026-01-0\d[T ]/.test(v));
    assert.deepEqual(broken, [], 'no other rule is broken');
    // ralph-mcp's normalized store shows every task date as its day (Ralph's triggers leave times there).
    const t = await withSession(p, {}, async (s) => (await s.ok('get_task', { id: 1 })).task, { invariants: false });
    assert.deepEqual([t.created, t.updated, t.completed], ['2026-01-01', '2026-01-02', '2026-01-04']);
  });
});

describe('done tasks without a completed date: --completed-from', () => {
  const undated =
    'UPDATE tasks SET completed = NULL WHERE id IN (1, 2); ' +
    "UPDATE tasks SET updated = '2026-01-06 12:00:00' WHERE id = 1";

  test('refused without it (the option, how many tasks and which), or when the chosen column is empty too', () => {
    const p = sampleProject('legacy');
    alter(p, undated);
    const err = refusedMigration(p, /2 done task\(s\) have no completed date \(tasks 1, 2\)/);
    assert.match(err, /run migrate again with --completed-from updated\|created\|now/);
    assert.match(err, /task 1 is done but has no completed date/);
    // The chosen column is empty for task 2: the other choices are named.
    const empty = refusedMigration(p, /task 2 is done but has no completed date, nor a updated date/, 'updated');
    assert.match(empty, /choose created or now/);
    assert.doesNotMatch(empty, /task 1 is done/, 'task 1 has an updated date to take');
  });

  test('filled from the chosen column, printed, and recorded in ralph_mcp_audit and task_history', async () => {
    const p = sampleProject('legacy');
    alter(p, undated);
    const out = migrateProject(p.root, undefined, 'created');
    assert.match(
      out,
      /completed dates: 2 done task\(s\) had none and took it from --completed-from created: tasks 1, 2/,
    );
    const auditId = Number(/ralph_mcp_audit row (\d+)/.exec(out)![1]);
    assert.deepEqual(rows(p, 'SELECT id, completed FROM runtime_tasks WHERE id IN (1, 2) ORDER BY id'), [
      { id: 1, completed: '2026-01-02' },
      { id: 2, completed: '2026-01-02' },
    ]);
    const audit = row(p, 'SELECT * FROM ralph_mcp_audit WHERE id = ?', auditId)!;
    assert.deepEqual(rows(p, 'SELECT id FROM ralph_mcp_audit'), [{ id: auditId }], 'the one row: the choice');
    assert.equal(audit.tool, 'migrate');
    assert.match(audit.session_id, /^ralph-mcp-migrate-/);
    const args = JSON.parse(audit.arguments);
    const recorded = [args.completed_from, args.completed_filled, args.backup];
    assert.deepEqual(recorded, ['created', [1, 2], basename(backupOf(p))]);
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    await withSession(p, {}, async (s) => {
      const { entries } = await s.ok('task_history', { task_id: 1 });
      const history = entries.map((e: AnyRow) => [e.tool, e.arguments.completed_from]);
      assert.deepEqual(history, [['migrate', 'created']]);
      assert.equal((await s.ok('get_task', { id: 2 })).task.completed, '2026-01-02');
    });
  });

  test('updated and now', () => {
    const p = sampleProject('legacy');
    alter(
      p,
      "UPDATE tasks SET completed = NULL WHERE id = 1; UPDATE tasks SET updated = '2026-01-06 12:00:00' WHERE id = 1",
    );
    migrateProject(p.root, undefined, 'updated');
    assert.equal(row(p, 'SELECT completed FROM runtime_tasks WHERE id = 1')!.completed, '2026-01-06 12:00:00');
    const q = sampleProject('legacy');
    alter(q, 'UPDATE tasks SET completed = NULL WHERE id = 2');
    const out = migrateProject(q.root, undefined, 'now');
    assertToday(row(q, 'SELECT completed FROM runtime_tasks WHERE id = 2')!.completed, 'completed from now');
    assert.match(out, /--completed-from now: tasks 2 /);
  });

  test('given when every done task has a date: nothing filled, and said so', () => {
    const p = sampleProject('legacy');
    const out = migrateProject(p.root, undefined, 'now');
    assert.match(out, /completed dates: every done task had one; --completed-from now filled none/);
    assert.deepEqual(rows(p, "SELECT id, completed FROM runtime_tasks WHERE status = 'done' ORDER BY id"), [
      { id: 1, completed: '2026-01-04' },
      { id: 2, completed: '2026-01-05' },
    ]);
  });
});

describe("ralph-mcp's own tables come along", () => {
  test('a live lease keeps its holder; audit, task history and aborts are carried row for row', async () => {
    const p = sampleProject('legacy');
    const lease = { recipe: 'worker', leaseSeconds: 3600 };
    const w = await openInProc(p, { ...lease, sessionId: 'lease-live' });
    assert.equal((await w.ok('claim_next_task')).task.id, 5);
    await w.ok('update_task_context', { hints: 'Start from the FTS5 docs' });
    await w.ok('add_task_comment', { body: 'Index created, triggers next' });
    await w.ok('signal_abort', { reason: 'Out of time' });
    const heldBefore = (await w.ok('get_task', { id: 5 })).held_by;
    const historyBefore = await w.ok('task_history', { task_id: 5 });
    // The session ends as a killed process does: its lease stays (a clean close would give the task back).
    w.store.close();
    assert.ok(heldBefore !== null && historyBefore.entries.length >= 3, 'precondition: a holder and a history');
    const OWN = {
      claims: 'SELECT * FROM ralph_mcp_claims ORDER BY task_id',
      audit: 'SELECT * FROM ralph_mcp_audit ORDER BY id',
      links: 'SELECT * FROM ralph_mcp_audit_tasks ORDER BY task_id, audit_id',
      signals: 'SELECT * FROM ralph_mcp_signals ORDER BY id',
    };
    const before = Object.fromEntries(Object.entries(OWN).map(([k, q]) => [k, rows(p, q)]));
    assert.ok(before.claims!.length === 1 && before.signals!.length === 1);

    const out = migrateProject(p.root);
    assert.match(
      out,
      /ralph-mcp's own records: 1 claim\(s\) with their leases, \d+ audit row\(s\), \d+ task-history link\(s\), /,
    );
    assert.match(out, /, 1 abort signal\(s\)/);
    // Row for row (no --completed-from choice: the migration adds no row of its own).
    for (const [k, q] of Object.entries(OWN)) assert.deepEqual(rows(p, q), before[k], k);

    await withSession(p, { ...lease, sessionId: 'lease-live' }, async (n) => {
      assert.deepEqual((await n.ok('get_task', { id: 5 })).held_by, heldBefore, 'the same holder and lease');
      assert.deepEqual(await n.ok('task_history', { task_id: 5 }), historyBefore, 'the same history (2 → 2, not 0)');
    });
    // Another worker does not take the held task.
    const next = await withSession(p, { ...lease, sessionId: 'lease-other' }, (o) => o.ok('claim_next_task'));
    assert.notEqual(next.task?.id, 5);
  });

  test('a claim on a task that no longer exists is left out, and said so; its history stays', async () => {
    const p = sampleProject('legacy');
    const w = await openInProc(p, { recipe: 'worker', sessionId: 'lease-gone', leaseSeconds: 3600 });
    assert.equal((await w.ok('claim_next_task')).task.id, 5);
    w.store.close(); // killed: its claim stays
    // A person deletes the claimed task in Ralph.
    alter(p, 'DELETE FROM task_comments WHERE task_id = 5; DELETE FROM tasks WHERE id = 5');
    const links = rows(p, 'SELECT * FROM ralph_mcp_audit_tasks WHERE task_id = 5');
    assert.ok(links.length > 0);
    const out = migrateProject(p.root);
    assert.match(out, /0 claim\(s\) with their leases \(1 on tasks that no longer exist left out\)/);
    assert.deepEqual(rows(p, 'SELECT * FROM ralph_mcp_claims'), []);
    assert.deepEqual(rows(p, 'SELECT * FROM ralph_mcp_audit_tasks WHERE task_id = 5'), links, 'the log is kept whole');
  });
});

describe("a person's own objects", () => {
  test('tables (rows, rowids, storage types, counters), indexes, triggers, views: carried as they were', async () => {
    const p = sampleProject('legacy');
    alter(
      p,
      `CREATE TABLE my_notes (
         id INTEGER PRIMARY KEY AUTOINCREMENT, task_ref INTEGER, note TEXT NOT NULL, weight, raw BLOB, big INTEGER);
       INSERT INTO my_notes (id, task_ref, note, weight, raw, big) VALUES
         (1, 3, 'check the form', 1.0, x'00ff', 9007199254740993), (4, NULL, 'second', '2.5', NULL, -1),
         (9, 5, 'gone', 3, NULL, 0);
       DELETE FROM my_notes WHERE id = 9;
       CREATE INDEX my_notes_task ON my_notes(task_ref);
       CREATE TABLE my_tags (
         note_id INTEGER REFERENCES my_notes(id), tag TEXT, PRIMARY KEY (note_id, tag)) WITHOUT ROWID;
       INSERT INTO my_tags VALUES (1, 'ui'), (4, 'later'), (77, 'orphan');
       CREATE TABLE my_plain (a, b);
       INSERT INTO my_plain (rowid, a, b) VALUES (10, 1, 'x'), (3, 2.0, NULL);
       CREATE TRIGGER my_notes_ai AFTER INSERT ON my_notes BEGIN INSERT INTO my_tags VALUES (NEW.id, 'new'); END;
       CREATE VIEW my_heavy AS SELECT id, note FROM my_notes WHERE weight > 1`,
    );
    const TABLES = {
      my_notes: 'SELECT rowid, *, typeof(weight) AS tw, typeof(big) AS tb, hex(raw) AS hr FROM my_notes ORDER BY rowid',
      my_tags: 'SELECT * FROM my_tags ORDER BY note_id, tag',
      my_plain: 'SELECT rowid, a, typeof(a) AS ta, b FROM my_plain ORDER BY rowid',
      schema: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name LIKE 'my\\_%' ESCAPE '\\' ORDER BY name",
      sequence: "SELECT seq FROM sqlite_sequence WHERE name = 'my_notes'",
    };
    // Integers as BigInt: a value past 2^53, and INTEGER 1 apart from REAL 1.0.
    const readAllOf = (path: string) => {
      const db = new Database(path, { readonly: true }).defaultSafeIntegers(true);
      try {
        return Object.fromEntries(Object.entries(TABLES).map(([k, q]) => [k, db.prepare(q).all()]));
      } finally {
        db.close();
      }
    };
    const before = readAllOf(p.dbPath);
    const out = migrateProject(p.root);
    assert.match(
      out,
      /your own objects, carried as they were: table my_notes \(2 row\(s\)\), table my_tags \(3 row\(s\)\), /,
    );
    assert.match(out, /, table my_plain \(2 row\(s\)\), index my_notes_task, trigger my_notes_ai, view my_heavy\n/);
    assert.deepEqual(readAllOf(p.dbPath), before, 'every object and row as it was');
    const broken = normalizedInvariants(p.dbPath).filter((v) => !v.includes('my_tags'));
    assert.deepEqual(broken, []);
    // Still theirs to use: the trigger fires, the view reads, the counter goes on.
    alter(p, "INSERT INTO my_notes (task_ref, note) VALUES (1, 'after')");
    assert.deepEqual(rows(p, "SELECT note_id FROM my_tags WHERE tag = 'new'"), [{ note_id: 10 }]);
    assert.deepEqual(rows(p, 'SELECT id FROM my_heavy ORDER BY id'), [{ id: 4 }]);
    assertDoctorPasses(p.root);
  });
});

describe('a refusal names the field and both values', () => {
  test('a list item that cannot be stored as it was: the task, the field and both values, whole', () => {
    const p = sampleProject('legacy');
    const long = `${'a'.repeat(600)}\\ud800${'b'.repeat(600)}`;
    alter(p, `UPDATE tasks SET tags = '["ui", "${long}"]' WHERE id = 3`);
    const err = refusedMigration(p, /the migrated database did not check out/);
    assert.match(err, /task 3: tags\[1\]: …"a+\\ud800b+"… \(1201 characters; from character 521\) became …"a+/);
    assert.doesNotMatch(err, /task 3: \{/, 'the field, not the whole record');
  });
});

describe('what an interrupted or obstructed migrate leaves behind (issue 28)', () => {
  /** A pid that no process has: one that has exited. */
  const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;
  const leftovers = (p: Project): string[] =>
    readdirSync(dirname(p.dbPath))
      .filter((f) => f.includes('.migrating-'))
      .sort();

  for (const generation of ['legacy', 'normalized'] as const) {
    test(`${generation}: files of a killed migrate (dead pid) are removed and named; a live pid's stay`, () => {
      const p = generation === 'legacy' ? sampleProject('legacy') : initProject(tempDir());
      const dead = deadPid();
      const live = process.ppid; // alive while this test runs: its files may be a migrate under way
      const stale = ['', '-journal', '.legacy', '.legacy-wal'].map((s) => `ralph.db.migrating-${dead}${s}`);
      for (const f of [...stale, `ralph.db.migrating-${live}`]) writeFileSync(join(dirname(p.dbPath), f), 'x');
      const out = migrateProject(p.root);
      const done =
        generation === 'legacy' ? /^migrated .*ralph\.db to Ralph's normalized schema/ : /nothing to migrate/;
      assert.match(out, done);
      assert.match(out, new RegExp(`removed 4 file\\(s\\) an interrupted migrate had left: .*migrating-${dead}\\b`));
      assert.deepEqual(leftovers(p), [`ralph.db.migrating-${live}`]);
    });
  }

  test('a refused migrate still removes and names the leftovers of a killed one', () => {
    const p = sampleProject('legacy');
    alter(p, "UPDATE tasks SET status = 'weird' WHERE id = 5");
    writeFileSync(`${p.dbPath}.migrating-${deadPid()}`, 'x');
    assert.throws(() => migrateProject(p.root), /task 5 has status "weird"[\s\S]*removed 1 file\(s\) an interrupted/);
    assert.deepEqual(leftovers(p), []);
  });

  test('a dangling symbolic link at the backup name: migrate takes the next name; no temporary file is left', () => {
    const p = sampleProject('legacy');
    const stamp = '20260101T000000Z';
    const link = `${p.dbPath}.legacy-${stamp}.bak`;
    symlinkSync(join(tempDir('ralph-outside-'), 'absent.bak'), link);
    const r = migrateDatabase(p.dbPath, { stamp });
    assert.ok(r.migrated);
    assert.equal(r.backup, `${p.dbPath}.legacy-${stamp}-2.bak`);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is left as it was');
    assert.deepEqual(leftovers(p), []);
    assert.deepEqual(tablesOf(p.dbPath).includes('task_details'), true);
  });
});
