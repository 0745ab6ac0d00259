import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { doctor } from '../../src/cli/doctor.js';
import { migrateProject } from '../../src/cli/migrate.js';
import { StartupError } from '../../src/domain/errors.js';
import { projectPaths, type Project } from '../../src/domain/project.js';
import { initProject } from '../../src/store/open/init.js';
import { type CompletedFrom, migrateDatabase } from '../../src/store/migrate/index.js';
import { openInProc } from './harness.js';
import { assertToday, row, rows } from '../helpers/assertions.js';
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

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The database file's hash and the files beside it. */
function fileState(p: Project): { hash: string; files: string[] } {
  return { hash: sha256(p.dbPath), files: readdirSync(dirname(p.dbPath)).sort() };
}

/** Changes a legacy database as another Ralph (or a person with sqlite3) would, then closes it cleanly. */
function alter(p: Project, statements: string): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  db.exec(statements);
  db.close();
}

const BACKUP_RE = /^ralph\.db\.legacy-.+\.bak$/;

function backupOf(p: Project): string {
  const found = readdirSync(dirname(p.dbPath)).filter((f) => BACKUP_RE.test(f));
  assert.equal(found.length, 1, `one backup beside the database: ${found.join(', ')}`);
  return join(dirname(p.dbPath), found[0]!);
}

/** Rows of a query on any database file (read-only, closed after). */
function readAll<T>(dbPath: string, sql: string): T[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const tablesOf = (dbPath: string): string[] =>
  readAll<{ name: string }>(dbPath, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map(
    (r) => r.name,
  );

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
  assert.deepEqual(
    readdirSync(dirname(p.dbPath)).filter((f) => f.startsWith('ralph.db-')),
    [],
    'no -wal/-shm at rest',
  );
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

/** doctor (in-process: its output, and ok for exit 0) passes and names the normalized schema. */
function assertServedNormalized(p: Project): void {
  const d = doctor(p.root);
  assert.ok(d.ok, d.text);
  assert.match(d.text, /all checks passed/);
  assert.match(d.text, /^✓ schema\s+normalized schema/m);
  assert.deepEqual(
    d.text.split('\n').filter((l) => l.startsWith('✗') || l.startsWith('–')),
    [],
  );
}

describe("migrate: Ralph's 04-desktop-dev (legacy) to the normalized schema", { skip: FIXTURE_SKIP }, () => {
  test('everything moves, checks out, reads back the same, and is served', async () => {
    const p = fixtureProject('04-desktop-dev.db');
    // The copy taken before migrating (the fixture's WAL is empty: the main file is the whole database).
    const pre = join(tempDir(), 'pre.db');
    copyFileSync(p.dbPath, pre);
    const preHash = sha256(pre);

    const out = migrateProject(p.root);
    assert.match(out, /migrated .* to Ralph's normalized schema/);

    // The files first (any later connection may make -wal/-shm of its own).
    const backup = backupOf(p);
    assert.ok(out.includes(backup), 'the output names the backup');
    assert.deepEqual(
      readdirSync(dirname(p.dbPath)).sort(),
      ['ralph.db', backup.slice(dirname(backup).length + 1)].sort(),
      'no -wal/-shm (or temp files) beside either',
    );
    assert.equal(sha256(backup), preHash, 'the backup is the original, byte for byte');
    // Ralph's reader opens files read-only, which leaves -wal/-shm behind: it reads a byte-identical copy of the
    // backup.
    const legacy = join(tempDir(), 'legacy.db');
    copyFileSync(backup, legacy);
    assert.equal(sha256(legacy), preHash);

    // The new database: normalized, Ralph's rules hold, SQLite's own checks pass.
    const tables = tablesOf(p.dbPath);
    assert.ok(tables.includes('runtime_tasks') && tables.includes('task_details') && tables.includes('task_signals'));
    assert.ok(
      !tables.includes('tasks') && !tables.includes('features') && !tables.includes('task_comments'),
      `no legacy tables left: ${tables.join(', ')}`,
    );
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
    const after = counts(p.dbPath);
    assert.ok(
      before.tasks === 20 && before.comments > 0 && before.dependencies > 0 && before.criteria > 0 && before.tags > 0,
    );
    assert.deepEqual(after, { ...before, comments: before.comments + legacyBlocked.length });
    for (const b of legacyBlocked) {
      assert.deepEqual(
        rows(p, 'SELECT "on", kind, detail FROM task_signals WHERE task_id = ? AND verb = \'blocked\'', b.id),
        [{ on: b.blocked_by, kind: 'external', detail: null }],
        `task ${b.id}'s blocked_by`,
      );
    }

    // Every task, comment, feature and discipline reads back as Ralph reads it on each side.
    const ids = query<{ id: number }>(p, 'SELECT id FROM runtime_tasks ORDER BY id').map((x) => x.id);
    assert.equal(ids.length, 20);
    for (const id of ids) {
      assert.deepEqual(comparable(ralphTask(p.dbPath, id)), comparable(ralphTask(legacy, id)), `task ${id}`);
      assert.equal(ralphTask(p.dbPath, id)!.template_id, null);
      const was = ralphComments(legacy, id);
      const now = ralphComments(p.dbPath, id);
      assert.deepEqual(
        now.slice(0, was.length).map((c) => [c.body, c.created]),
        was.map((c) => [c.body, c.created]),
        `comments of task ${id}, in order`,
      );
      for (const c of now.slice(0, was.length)) {
        assert.ok(
          c.generation === 'normalized' && c.verb === 'learned' && c.kind === 'discovery' && c.scope === 'task',
          `comment ${c.id} is a learned signal`,
        );
      }
    }
    const featureNames = readAll<{ name: string }>(legacy, 'SELECT name FROM features ORDER BY name').map(
      (x) => x.name,
    );
    for (const name of featureNames) {
      const { status: _s, learnings: la, ...a } = ralphFeature(legacy, name)!;
      const { status, learnings: lb, ...b } = ralphFeature(p.dbPath, name)!;
      assert.deepEqual(b, a, `feature ${name}`);
      assert.equal(status, 'active');
      assert.deepEqual(
        lb.map((l) => l.text),
        la.map((l) => l.text),
        `learnings of ${name}`,
      );
    }
    const disciplineNames = readAll<{ name: string }>(legacy, 'SELECT name FROM disciplines ORDER BY name').map(
      (x) => x.name,
    );
    for (const name of disciplineNames) {
      const { agent: _a, model: _m, effort: _e, thinking: _t, ...a } = ralphDiscipline(legacy, name)!;
      const { agent: _a2, model: _m2, effort: _e2, thinking: _t2, ...b } = ralphDiscipline(p.dbPath, name)!;
      assert.deepEqual(b, a, `discipline ${name}`);
    }

    // The migrated project is served.
    assertServedNormalized(p);
    const s = await openInProc(p, { recipe: 'yap' });
    try {
      const created = await s.ok('create_task', {
        feature: 'search',
        discipline: 'backend',
        title: 'Created after the migration',
        depends_on: [13],
        acceptance_criteria: ['a', 'b'],
      });
      assert.equal(created.task.id, 21, 'ids go on from the legacy ones');
      const back = await s.ok('get_task', { id: created.task.id });
      assert.deepEqual(back.task, created.task);
      assert.deepEqual(comparable(ralphTask(p.dbPath, 21))?.title, 'Created after the migration');
      assert.deepEqual(
        rows(p, 'SELECT criterion_order FROM task_acceptance_criteria WHERE task_id = 21 ORDER BY criterion_order'),
        [{ criterion_order: 0 }, { criterion_order: 1 }],
      );
      const old = await s.ok('get_task', { id: 14 });
      assert.equal(old.task.blocked_by, 'Waiting for search index (#13)', 'a legacy blocked_by still reads as one');
    } finally {
      await s.close();
    }
    assert.deepEqual(normalizedInvariants(p.dbPath), []);

    // A second run (the project at rest: no -wal/-shm left by the readers above): nothing to migrate, nothing changed.
    atRest(p);
    upToDate(p);
    assert.equal(sha256(backup), preHash);
  });
});

describe('migrate: the sample project', () => {
  test('keeps learnings with hit_count, source and review (ralph_mcp_learning_meta), tasks and comments', async () => {
    const p = sampleProject('legacy');
    // Before: what a legacy session shows.
    const legacy = await openInProc(p);
    const featureNames: string[] = (await legacy.ok('list_features', {})).features.map((f: { name: string }) => f.name);
    const featuresBefore = await Promise.all(featureNames.map((name) => legacy.ok('get_feature', { name })));
    const learningsBefore = await Promise.all(
      featureNames.map((name) => legacy.ok('get_feature_learnings', { feature_name: name })),
    );
    const taskIds: number[] = (await legacy.ok('list_tasks', {})).tasks.map((t: { id: number }) => t.id);
    const tasksBefore = await Promise.all(taskIds.map((id) => legacy.ok('get_task', { id })));
    const disciplinesBefore = await Promise.all(
      (await legacy.ok('list_disciplines', {})).disciplines.map((d: { name: string }) =>
        legacy.ok('get_discipline', { name: d.name }),
      ),
    );
    await legacy.close();
    const preHash = sha256(p.dbPath);
    const before = counts(p.dbPath);

    migrateProject(p.root);
    const backup = backupOf(p);
    assert.equal(sha256(backup), preHash);
    assert.deepEqual(
      readdirSync(dirname(p.dbPath)).filter((f) => f.endsWith('-wal') || f.endsWith('-shm')),
      [],
    );
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    // Task 7 had a blocked_by: one more signal.
    assert.deepEqual(counts(p.dbPath), { ...before, comments: before.comments + 1 });

    const normalized = await openInProc(p);
    try {
      assert.equal(normalized.store.generation, 'normalized');
      // Knowledge entries get ids on the new file (a legacy learning, an item of a JSON list, has none).
      assert.deepEqual(
        withoutIds(await Promise.all(featureNames.map((name) => normalized.ok('get_feature', { name })))),
        withoutIds(featuresBefore),
        'every feature, with its learnings and other knowledge, as before',
      );
      assert.deepEqual(
        withoutIds(
          await Promise.all(featureNames.map((name) => normalized.ok('get_feature_learnings', { feature_name: name }))),
        ),
        withoutIds(learningsBefore),
      );
      for (const [i, id] of taskIds.entries()) {
        const now = await normalized.ok('get_task', { id });
        // `template` (where a task was pulled from) exists on the normalized generation only.
        const { template, ...task } = now.task;
        assert.equal(template, null);
        assert.deepEqual(task, tasksBefore[i].task, `task ${id}`);
        assert.deepEqual(
          now.comments.slice(0, tasksBefore[i].comments.length).map(({ id: _id, ...c }: Record<string, unknown>) => c),
          tasksBefore[i].comments.map(({ id: _id, ...c }: Record<string, unknown>) => c),
          `comments of task ${id}`,
        );
      }
      assert.deepEqual(
        await Promise.all(
          (await normalized.ok('list_disciplines', {})).disciplines.map((d: { name: string }) =>
            normalized.ok('get_discipline', { name: d.name }),
          ),
        ),
        disciplinesBefore,
      );
    } finally {
      await normalized.close();
    }
    // Where the learnings' own fields live now.
    const recipes = featuresBefore[featureNames.indexOf('recipes')].feature.learnings;
    assert.equal(recipes.length, 2);
    assert.deepEqual(
      rows(
        p,
        `SELECT c.body, c.category, m.source, m.hit_count, m.reviewed, m.review_count
         FROM subsystem_comments c JOIN ralph_mcp_learning_meta m ON m.comment_id = c.id
         JOIN subsystems s ON s.id = c.subsystem_id WHERE s.name = 'recipes' ORDER BY c.id`,
      ),
      [
        {
          body: 'Validate ingredient quantities on the server',
          category: 'learning',
          source: 'auto',
          hit_count: 1,
          reviewed: 0,
          review_count: 0,
        },
        {
          body: 'Always store quantities in grams, convert only for display',
          category: 'learning',
          source: 'human',
          hit_count: 3,
          reviewed: 1,
          review_count: 1,
        },
      ],
    );
    assert.equal(
      row(p, "SELECT created FROM subsystem_comments WHERE body LIKE 'Always store%'")!.created,
      '2026-01-03T10:00:00Z',
    );
    assertServedNormalized(p);
    // A second run: nothing to do.
    atRest(p);
    upToDate(p);
  });

  test("signal verbs kept on legacy become Ralph's own signals, in place of their comments", async () => {
    const p = sampleProject('legacy');
    const s = await openInProc(p, { recipe: 'signals', task: '3', sessionId: 'legacy-signals-1' });
    const asked = await s.ok('ask', {
      question: 'Metric or imperial?',
      options: ['metric', 'imperial'],
      blocking: true,
    });
    await s.ok('done', { summary: 'Form shipped' });
    const flagged = await s.ok('flag', { what: 'Slow save', severity: 'warning', category: 'performance' });
    s.store.write(() => s.store.signals.answerQuestion(asked.signal_id, 'metric'));
    const commentsBefore = s.store.comments.comments(3).map(({ id: _id, ...c }) => c);
    await s.close();
    // A person deletes the comment of one signal: the signal itself still moves.
    const flagComment = row(
      p,
      'SELECT comment_id FROM ralph_mcp_task_signals WHERE id = ?',
      flagged.signal_id,
    )!.comment_id;
    alter(p, `DELETE FROM task_comments WHERE id = ${Number(flagComment)}`);
    migrateProject(p.root);
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    assert.deepEqual(
      rows(
        p,
        `SELECT verb, question, options, blocking, answer, summary, what, severity, category FROM task_signals
         WHERE session_id = 'legacy-signals-1' ORDER BY id`,
      ),
      [
        {
          verb: 'ask',
          question: 'Metric or imperial?',
          options: 'metric\nimperial',
          blocking: 1,
          answer: 'metric',
          summary: null,
          what: null,
          severity: null,
          category: null,
        },
        {
          verb: 'done',
          question: null,
          options: null,
          blocking: null,
          answer: null,
          summary: 'Form shipped',
          what: null,
          severity: null,
          category: null,
        },
        {
          verb: 'flag',
          question: null,
          options: null,
          blocking: null,
          answer: null,
          summary: null,
          what: 'Slow save',
          severity: 'warning',
          category: 'performance',
        },
      ],
    );
    assert.deepEqual(
      rows(p, "SELECT kind, started_by, task_id, status FROM agent_sessions WHERE id = 'legacy-signals-1'"),
      [{ kind: 'task_execution', started_by: 'agent', task_id: 3, status: 'finished' }],
    );
    // No signal became a plain learned comment as well.
    assert.equal(
      row(
        p,
        `SELECT count(*) AS n FROM task_signals WHERE task_id = 3 AND verb = 'learned'
         AND text IN ('Form shipped', 'Metric or imperial?')`,
      )!.n,
      0,
    );
    const after = await openInProc(p);
    try {
      const comments = (await after.ok('get_task', { id: 3 })).comments.map(
        ({ id: _id, ...c }: Record<string, unknown>) => c,
      );
      const shown = commentsBefore.filter(
        (c: Record<string, unknown>) => c.body !== '[warning, performance] Slow save',
      );
      assert.deepEqual(
        comments
          .slice(0, shown.length + 1)
          .filter((c: Record<string, unknown>) => c.body !== '[warning, performance] Slow save'),
        shown,
        'the comments read the same',
      );
      assert.deepEqual(
        (await after.ok('get_answers', { task_id: 3 })).questions.map((q: Record<string, unknown>) => [
          q.question,
          q.answer,
        ]),
        [['Metric or imperial?', 'metric']],
      );
    } finally {
      await after.close();
    }
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
  const CASES: [string, string, RegExp][] = [
    ["a task with status 'weird'", "UPDATE tasks SET status = 'weird' WHERE id = 5", /task 5 has status "weird"/],
    [
      'a done task without completed',
      'UPDATE tasks SET completed = NULL WHERE id = 1',
      /task 1 is done but has no completed date/,
    ],
    [
      'depends_on naming a missing task',
      "UPDATE tasks SET depends_on = '[3, 99]' WHERE id = 4",
      /task 4 depends on task 99, which does not exist/,
    ],
    [
      'a task JSON column that is not an array',
      'UPDATE tasks SET tags = \'{"ui": true}\' WHERE id = 3',
      /tasks\.tags of task 3 is not a JSON array/,
    ],
    [
      'a feature JSON column that is not an array',
      "UPDATE features SET context_files = '\"src/api/recipes.ts\"' WHERE name = 'recipes'",
      /features\.context_files of feature "recipes" is not a JSON array/,
    ],
    [
      'a learning that is a number',
      "UPDATE features SET learnings = '[\"fine\", 42]' WHERE name = 'search'",
      /features\.learnings of feature "search"\[1\] is neither a string nor an object with a text/,
    ],
    [
      'a learning object without text',
      'UPDATE features SET learnings = \'[{"note": "no text"}]\' WHERE name = \'auth\'',
      /features\.learnings of feature "auth"\[0\] is neither a string nor an object with a text/,
    ],
    [
      'two features whose names differ only in case',
      "INSERT INTO features (name, display_name, acronym) VALUES ('Search', 'Search (old)', 'SRC2')",
      /features "search" and "Search" differ only in case/,
    ],
    [
      'an extra column holding data',
      "ALTER TABLE tasks ADD COLUMN assignee TEXT; UPDATE tasks SET assignee = 'bob' WHERE id = 3",
      /tasks\.assignee holds values in 1 row/,
    ],
    [
      "a person's index on Ralph's legacy table",
      'CREATE INDEX my_titles ON tasks(title)',
      /your index "my_titles" is on tasks, a table of Ralph's .* that the normalized schema replaces/,
    ],
    [
      "a person's view reading Ralph's legacy table",
      "CREATE VIEW my_open AS SELECT id, title FROM tasks WHERE status = 'pending'",
      /your view "my_open" names tasks, table\(s\) of Ralph's/,
    ],
    [
      "a person's trigger (on their own table) writing Ralph's table",
      `CREATE TABLE my_log (x TEXT);
       CREATE TRIGGER my_log_ai AFTER INSERT ON my_log BEGIN UPDATE tasks SET hints = NEW.x WHERE id = 1; END`,
      /your trigger "my_log_ai" names tasks/,
    ],
    [
      "a person's table with a foreign key into Ralph's table",
      'CREATE TABLE my_links (task_id INTEGER REFERENCES tasks(id), url TEXT)',
      /your table "my_links" has a foreign key into tasks/,
    ],
    [
      "a person's virtual table",
      'CREATE VIRTUAL TABLE my_search USING fts5(body)',
      /your table "my_search" is a virtual table/,
    ],
    [
      "a person's object named like one of Ralph's normalized schema",
      'CREATE TABLE my_t (x); CREATE INDEX idx_task_tags_task ON my_t(x)',
      /your index "idx_task_tags_task" has the name of an object of Ralph's normalized schema/,
    ],
    [
      'a table of ralph-mcp that this version does not know, holding rows',
      "CREATE TABLE ralph_mcp_future (x TEXT); INSERT INTO ralph_mcp_future VALUES ('kept by a newer ralph-mcp')",
      /ralph_mcp_future holds 1 row\(s\) this ralph-mcp does not know how to carry/,
    ],
  ];
  for (const [label, statements, pattern] of CASES) {
    test(label, () => {
      const p = sampleProject('legacy');
      alter(p, statements);
      const err = refusedMigration(p, pattern);
      assert.match(err, /nothing was changed/);
    });
  }

  test('several problems at once are all named', () => {
    const p = sampleProject('legacy');
    alter(p, "UPDATE tasks SET status = 'weird' WHERE id = 5; UPDATE tasks SET depends_on = '[77]' WHERE id = 6");
    const err = refusedMigration(p, /2 value\(s\)/);
    assert.match(err, /task 5 has status "weird"/);
    assert.match(err, /task 6 depends on task 77/);
  });

  // A refusal changes no file: not the -wal/-shm a read-only reader (here `doctor`, as a user would run
  // it first) left beside the database either.
  test('a refused migrate leaves the -wal/-shm already beside the database alone', () => {
    const p = sampleProject('legacy');
    alter(p, "UPDATE tasks SET status = 'weird' WHERE id = 5");
    doctor(p.root);
    assert.ok(readdirSync(dirname(p.dbPath)).includes('ralph.db-wal'), 'precondition: doctor left a -wal');
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
    assert.deepEqual(
      rows(
        p,
        `SELECT r.id, r.created, r.updated, r.completed, d.created AS d_created, d.updated AS d_updated
         FROM runtime_tasks r JOIN task_details d ON d.id = r.details_id WHERE r.id IN (1, 3) ORDER BY r.id`,
      ),
      [
        {
          id: 1,
          created: '2026-01-01T10:00:00Z',
          updated: '2026-01-02 08:30:00',
          completed: '2026-01-04T16:45:12.345Z',
          d_created: '2026-01-01T10:00:00Z',
          d_updated: '2026-01-02 08:30:00',
        },
        {
          id: 3,
          created: '2026-01-03T09:00:00+02:00',
          updated: '2026-01-05T07:00:00Z',
          completed: null,
          d_created: '2026-01-03T09:00:00+02:00',
          d_updated: '2026-01-05T07:00:00Z',
        },
      ],
    );
    // ralphRead's date rules are stricter than Ralph's code (which reads any text): they flag exactly these.
    assert.deepEqual(
      normalizedInvariants(p.dbPath).filter((v) => !/2026-01-0\d[T ]/.test(v)),
      [],
      'no other rule is broken',
    );
    // ralph-mcp's normalized store shows every task date as its day (Ralph's triggers leave times there).
    const s = await openInProc(p, {}, { invariants: false });
    try {
      const t = (await s.ok('get_task', { id: 1 })).task;
      assert.deepEqual([t.created, t.updated, t.completed], ['2026-01-01', '2026-01-02', '2026-01-04']);
    } finally {
      await s.close();
    }
  });
});

describe('done tasks without a completed date: --completed-from', () => {
  const undated =
    'UPDATE tasks SET completed = NULL WHERE id IN (1, 2); ' +
    "UPDATE tasks SET updated = '2026-01-06 12:00:00' WHERE id = 1";

  test('refused without it: the option, how many tasks and which', () => {
    const p = sampleProject('legacy');
    alter(p, undated);
    const err = refusedMigration(p, /2 done task\(s\) have no completed date \(tasks 1, 2\)/);
    assert.match(err, /run migrate again with --completed-from updated\|created\|now/);
    assert.match(err, /task 1 is done but has no completed date/);
  });

  test('refused when the chosen column is empty too, naming the other choices', () => {
    const p = sampleProject('legacy');
    alter(p, undated);
    const err = refusedMigration(p, /task 2 is done but has no completed date, nor a updated date/, 'updated');
    assert.match(err, /choose created or now/);
    assert.doesNotMatch(err, /task 1 is done/, 'task 1 has an updated date to take');
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
    assert.equal(args.completed_from, 'created');
    assert.deepEqual(args.completed_filled, [1, 2]);
    assert.equal(args.backup, backupOf(p).slice(dirname(p.dbPath).length + 1));
    assert.deepEqual(normalizedInvariants(p.dbPath), []);
    const s = await openInProc(p);
    try {
      const history = await s.ok('task_history', { task_id: 1 });
      assert.deepEqual(
        history.entries.map((e: { tool: string; arguments: { completed_from: string } }) => [
          e.tool,
          e.arguments.completed_from,
        ]),
        [['migrate', 'created']],
      );
      assert.equal((await s.ok('get_task', { id: 2 })).task.completed, '2026-01-02');
    } finally {
      await s.close();
    }
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
    const w = await openInProc(p, { recipe: 'worker', sessionId: 'lease-live', leaseSeconds: 3600 });
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

    const n = await openInProc(p, { recipe: 'worker', sessionId: 'lease-live', leaseSeconds: 3600 });
    try {
      assert.deepEqual((await n.ok('get_task', { id: 5 })).held_by, heldBefore, 'the same holder and lease');
      assert.deepEqual(await n.ok('task_history', { task_id: 5 }), historyBefore, 'the same history (2 → 2, not 0)');
    } finally {
      await n.close();
    }
    // Another worker does not take the held task.
    const other = await openInProc(p, { recipe: 'worker', sessionId: 'lease-other', leaseSeconds: 3600 });
    try {
      const next = await other.ok('claim_next_task');
      assert.notEqual(next.task?.id, 5);
    } finally {
      await other.close();
    }
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
    assert.deepEqual(
      normalizedInvariants(p.dbPath).filter((v) => !v.includes('my_tags')),
      [],
    );
    // Still theirs to use: the trigger fires, the view reads, the counter goes on.
    alter(p, "INSERT INTO my_notes (task_ref, note) VALUES (1, 'after')");
    assert.deepEqual(rows(p, "SELECT note_id FROM my_tags WHERE tag = 'new'"), [{ note_id: 10 }]);
    assert.deepEqual(rows(p, 'SELECT id FROM my_heavy ORDER BY id'), [{ id: 4 }]);
    assertServedNormalized(p);
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

/** A deep copy without any `id` key, for comparing what differs only in ids the new file assigns. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'id')
      .map(([k, v]) => [k, withoutIds(v)]),
  );
}

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
      assert.match(
        out,
        generation === 'legacy' ? /^migrated .*ralph\.db to Ralph's normalized schema/ : /nothing to migrate/,
      );
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
