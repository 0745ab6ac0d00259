import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { GENERATIONS, type Generation } from '../../src/store/records.js';
import { FIXTURE_SKIP, HEAD_FIXTURE_SKIP, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { dump, fixtureProject, sampleProject, sql } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';

/**
 * `ralph-mcp doctor` names each dependency problem (exit 1 for those that keep tasks from ever being
 * ready; a done task waiting on an unfinished one is a warning), and `ralph-mcp repair` as a person runs
 * it: a dry run by default, --apply to remove. What repair writes, row by row, is checked in-process
 * (test/contract/dependencyProblems.test.ts).
 */

function breakGraph(p: Project, generation: Generation, [a, b]: [number, number], dangling: number, self: number) {
  const db = sql(p);
  try {
    // As the sqlite3 shell writes: foreign keys off; the CHECK against a self edge ignored.
    db.pragma('foreign_keys = OFF');
    db.pragma('ignore_check_constraints = ON');
    if (generation === 'legacy') {
      const add = db.prepare(
        // CAST: a JS number is bound as a REAL, which json_insert would write as 5.0.
        `UPDATE tasks SET depends_on = json_insert(coalesce(depends_on, '[]'), '$[#]', CAST(? AS INTEGER))
         WHERE id = ?`,
      );
      for (const [task, dep] of [
        [a, b],
        [b, a],
        [self, dangling],
        [self, self],
      ])
        add.run(dep, task);
    } else {
      const add = db.prepare('INSERT OR IGNORE INTO task_dependencies (task_id, depends_on_task_id) VALUES (?, ?)');
      for (const [task, dep] of [
        [a, b],
        [b, a],
        [self, dangling],
        [self, self],
      ])
        add.run(task, dep);
    }
  } finally {
    db.close();
  }
}

describe('doctor and repair on a broken dependency graph', () => {
  for (const generation of GENERATIONS) {
    test(`doctor names the cycle with its edges, dangling and self edges, a done task waiting [${generation}]`, () => {
      const p = sampleProject(generation);
      breakGraph(p, generation, [2, 5], 99, 6);
      const r = runCli(['doctor', '--project', p.root]);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /\n✗ dependency cycles +1 \(a→b: a waits on b\): tasks 2, 5 \(2→5, 5→2\); /);
      assert.match(r.stdout, /\n✗ dangling dependencies +1 on a task that does not exist: 6→99; .*repair --apply/);
      assert.match(r.stdout, /\n✗ self-dependencies +1: task\(s\) 6 wait on themselves/);
      assert.match(r.stdout, /\n! done tasks waiting +1 done task\(s\) wait on unfinished ones: 2→5 \(pending\)/);
      assert.match(r.stdout, /\n3 check\(s\) failed, 1 warning\(s\)\n$/);
    });

    test(`repair: a dry run by default, --apply removes, doctor then names only the cycle [${generation}]`, () => {
      const p = sampleProject(generation);
      breakGraph(p, generation, [2, 5], 99, 6);
      const before = dump(p);
      const dry = runCli(['repair', '--project', p.root]);
      assert.equal(dry.status, 0, dry.stderr);
      assert.match(dry.stdout, /^dry run, nothing changed: --apply would remove 2 broken dependencies/);
      assert.equal(dump(p), before);

      const applied = runCli(['repair', '--project', p.root, '--apply']);
      assert.equal(applied.status, 0, applied.stderr);
      assert.match(
        applied.stdout,
        /^removed 2 broken dependencies .*\n {2}on a missing task: 6→99\n {2}on itself: 6→6\n/,
      );
      assert.match(applied.stdout, /left for a person \(not changed\):\n {2}cycle among tasks 2, 5: 2→5, 5→2/);

      const after = runCli(['doctor', '--project', p.root]);
      assert.equal(after.status, 1);
      assert.match(after.stdout, /\n✗ dependency cycles +1 /);
      assert.match(after.stdout, /\n✓ dangling dependencies +none\n✓ self-dependencies +none\n/);
    });
  }

  test("on copies of Ralph's fixtures: sound as Ralph wrote them, each problem named once broken", {
    skip: FIXTURE_SKIP || HEAD_FIXTURE_SKIP,
  }, () => {
    for (const [generation, p] of [
      ['legacy', fixtureProject('04-desktop-dev.db')],
      ['normalized', fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR)],
    ] as const) {
      const sound = runCli(['doctor', '--project', p.root]);
      assert.equal(sound.status, 0, sound.stdout);
      assert.match(sound.stdout, /\n✓ dependency cycles +none among 13 dependencies\n/);
      breakGraph(p, generation, [7, 11], 404, 16);
      const r = runCli(['doctor', '--project', p.root]);
      assert.equal(r.status, 1, generation);
      assert.match(r.stdout, /tasks 7, 11 \(7→11, 11→7\)/, generation);
      assert.match(r.stdout, /that does not exist: 16→404;/, generation);
      assert.match(r.stdout, /task\(s\) 16 wait on themselves/, generation);
      assert.match(r.stdout, /\n✓ done tasks waiting +none\n/, generation);
    }
  });
});
