import assert from 'node:assert/strict';
import { basename, dirname } from 'node:path';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import type { Generation } from '../../src/store/records.js';
import { repairDependencies } from '../../src/cli/repair.js';
import { FIXTURE_SKIP, FIXTURES_DIR, HEAD_FIXTURE_SKIP, HEAD_FIXTURES_DIR } from '../helpers/env.js';
import { dump, fixtureProject, query, sql } from '../helpers/project.js';
import { ralphTask } from '../helpers/ralphRead.js';
import { contract } from './harness.js';

/**
 * The dependency doctor's reading side (dependency_problems; blocked_tasks' graph: true in opus_review) and
 * `ralph-mcp repair`, on graphs broken the way Ralph's app or plain SQL leave them: a cycle, a dependency
 * on a task that does not exist, one on the task itself. Repair removes exactly the last two kinds:
 * every other row stays byte for byte as it was, and Ralph's read rules hold after.
 *
 * Sample plan: 1 done ← 2 done ← 3 in_progress ← 4 pending; 3 ← 7 blocked; 5 pending, 6 draft.
 */

/** Plain SQL, as another writer would: foreign keys off (the sqlite3 shell's default), CHECKs ignored. */
function exec(p: Project, generation: Generation, legacy: string, normalized: string): void {
  const db = sql(p);
  try {
    db.pragma('foreign_keys = OFF');
    db.pragma('ignore_check_constraints = ON');
    db.exec(generation === 'legacy' ? legacy : normalized);
  } finally {
    db.close();
  }
}

/** The issue's cycle 2→5→2, task 4 waiting on a task 99 that never existed, task 6 waiting on itself. */
function breakSample(p: Project, generation: Generation): Project {
  exec(
    p,
    generation,
    `UPDATE tasks SET depends_on = '[1,5]' WHERE id = 2; UPDATE tasks SET depends_on = '[2]' WHERE id = 5;
     UPDATE tasks SET depends_on = '[3,99]' WHERE id = 4; UPDATE tasks SET depends_on = '[6]' WHERE id = 6;`,
    'INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (2, 5), (5, 2), (4, 99), (6, 6);',
  );
  return p;
}

const SAMPLE_PROBLEMS = {
  cycles: [
    {
      tasks: [2, 5],
      edges: [
        [2, 5],
        [5, 2],
      ],
    },
  ],
  dangling: [[4, 99]],
  self: [6],
  // 2 is done and now waits on 5 (pending): reported, never changed.
  done_waiting: [{ task: 2, dep: 5, status: 'pending' }],
};

const NONE = { cycles: [], dangling: [], self: [], done_waiting: [] };

/** A second project holding a byte copy of `p`'s database (every connection to it closed). */
const copyOf = (p: Project): Project => fixtureProject(basename(p.dbPath), dirname(p.dbPath));

/** The audit rows repair wrote (none before our tables exist: a dry run never makes them). */
const repairRows = (p: Project) =>
  query(p, "SELECT 1 FROM sqlite_master WHERE name = 'ralph_mcp_audit'").length === 0
    ? []
    : query<{ id: number; tool: string; arguments: string; session_id: string }>(
        p,
        "SELECT id, tool, arguments, session_id FROM ralph_mcp_audit WHERE tool = 'repair' ORDER BY id",
      );

contract('dependency problems', (env) => {
  const legacy = env.generation === 'legacy';

  test('dependency_problems lists the cycle with its edges, dangling and self edges, a done task waiting', async () => {
    const healthy = await env.open({ recipe: 'yap' });
    assert.deepEqual(await healthy.ok('dependency_problems'), NONE);
    const broken = breakSample(env.sample(), env.generation);
    const s = await env.open({ recipe: 'enrichment' }, broken, { invariants: false });
    assert.deepEqual(await s.ok('dependency_problems'), SAMPLE_PROBLEMS);
  });

  test('an answer holds at most 50 of a kind, and says when it was cut', async () => {
    const p = env.sample();
    const missing = Array.from({ length: 51 }, (_, i) => 100 + i);
    exec(
      p,
      env.generation,
      `UPDATE tasks SET depends_on = '${JSON.stringify([3, ...missing])}' WHERE id = 4`,
      `INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES ${missing.map((m) => `(4, ${m})`).join(', ')}`,
    );
    const s = await env.open({ recipe: 'yap' }, p, { invariants: false });
    const r = await s.ok('dependency_problems');
    assert.equal(r.dangling.length, 50);
    assert.deepEqual(r.dangling.at(-1), [4, 149]);
    assert.equal(r.truncated, true);
  });

  test('opus_review asks blocked_tasks for them (graph: true); nothing reads the graph unasked', async () => {
    const healthy = await env.open({ recipe: 'opus_review' });
    assert.deepEqual((await healthy.ok('blocked_tasks', { graph: true })).dependency_problems, NONE);
    const broken = breakSample(env.sample(), env.generation);
    const s = await env.open({ recipe: 'opus_review' }, broken, { invariants: false });
    for (const args of [{ waiting: true, graph: true }, { graph: true }])
      assert.deepEqual((await s.ok('blocked_tasks', args)).dependency_problems, SAMPLE_PROBLEMS);
    // Unasked, neither the lists nor progress carry them: the check reads every edge.
    assert.equal((await s.ok('blocked_tasks', { waiting: true })).dependency_problems, undefined);
    assert.equal((await s.ok('get_project_progress')).dependency_problems, undefined);
  });

  test("on a copy of Ralph's fixture: each problem named, repair removes two edges and nothing else", {
    skip: legacy ? FIXTURE_SKIP : HEAD_FIXTURE_SKIP,
  }, async () => {
    const p = fixtureProject('04-desktop-dev.db', legacy ? FIXTURES_DIR : HEAD_FIXTURES_DIR);
    const s0 = await env.open({ recipe: 'yap' }, p);
    assert.deepEqual(await s0.ok('dependency_problems'), NONE, "Ralph's own fixture is sound");
    // 3 (done) waits on 2; 2 made to wait on 3 closes a cycle; 7 waits on a task 500; 11 on itself.
    exec(
      p,
      env.generation,
      `UPDATE tasks SET depends_on = '[3]' WHERE id = 2; UPDATE tasks SET depends_on = '[500]' WHERE id = 7;
       UPDATE tasks SET depends_on = '[11]' WHERE id = 11;`,
      'INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (2, 3), (7, 500), (11, 11);',
    );
    const s = await env.open({ recipe: 'yap' }, p, { invariants: false });
    assert.deepEqual(await s.ok('dependency_problems'), {
      cycles: [
        {
          tasks: [2, 3],
          edges: [
            [2, 3],
            [3, 2],
          ],
        },
      ],
      dangling: [[7, 500]],
      self: [11],
      done_waiting: [],
    });
    const expected = copyOf(p);
    assert.match(repairDependencies(p.root, undefined, true), /^removed 2 broken dependencies/);
    exec(
      expected,
      env.generation,
      `UPDATE tasks SET depends_on = '[]' WHERE id IN (7, 11);`,
      'DELETE FROM task_dependencies WHERE task_id IN (7, 11) AND depends_on_task_id IN (500, 11);',
    );
    assert.equal(dump(p), dump(expected));
    // Ralph's read rules: only the cycle is left, for a person.
    const left = env.invariants(p);
    if (legacy) assert.deepEqual(left, []);
    else assert.match(left.join('\n'), /^\[dependencies_acyclic\] dependency cycle: (2 -> 3 -> 2|3 -> 2 -> 3)$/);
    assert.equal(repairRows(p).length, 1);
  });

  test('repair: a dry run changes nothing; --apply removes the dangling and self edges and nothing else', () => {
    const p = breakSample(env.sample(), env.generation);
    const expected = copyOf(p);
    const before = dump(p);

    const dry = repairDependencies(p.root, undefined, false);
    assert.match(dry, /^dry run, nothing changed: --apply would remove 2 broken dependencies/);
    assert.match(dry, /on a missing task: 4→99\n {2}on itself: 6→6\n/);
    assert.match(dry, /cycle among tasks 2, 5: 2→5, 5→2 \(cut one edge\)/);
    assert.equal(dump(p), before);
    assert.deepEqual(repairRows(p), []);

    const applied = repairDependencies(p.root, undefined, true);
    assert.match(applied, /^removed 2 broken dependencies \(a→b: a waits on b; recorded in ralph_mcp_audit row \d+/);
    assert.match(applied, /task 2 is done but waits on 5 \(pending\)/);
    // The same two removals made by hand on the copy: every other row, the dates included, as it was.
    exec(
      expected,
      env.generation,
      `UPDATE tasks SET depends_on = '[3]' WHERE id = 4; UPDATE tasks SET depends_on = '[]' WHERE id = 6;`,
      `DELETE FROM task_dependencies
       WHERE (task_id = 4 AND depends_on_task_id = 99) OR (task_id = 6 AND depends_on_task_id = 6);`,
    );
    assert.equal(dump(p), dump(expected));

    // Ralph reads the repaired tasks; what is left is the cycle, for a person to cut.
    assert.deepEqual(ralphTask(p.dbPath, 4)!.depends_on, [3]);
    assert.deepEqual(ralphTask(p.dbPath, 6)!.depends_on, []);
    const left = env.invariants(p);
    if (legacy) assert.deepEqual(left, []);
    else assert.deepEqual(left, ['[dependencies_acyclic] dependency cycle: 2 -> 5 -> 2']);

    const [row, ...more] = repairRows(p);
    assert.deepEqual(more, []);
    assert.deepEqual(JSON.parse(row!.arguments), { dangling: [[4, 99]], self: [6], stored_items_removed: 2 });
    assert.match(row!.session_id, /^ralph-mcp-repair-/);
    assert.deepEqual(
      query(p, 'SELECT task_id FROM ralph_mcp_audit_tasks WHERE audit_id = ? ORDER BY task_id', row!.id),
      [{ task_id: 4 }, { task_id: 6 }],
    );

    // Run again: nothing to remove, nothing written, no second row.
    const after = dump(p);
    assert.match(repairDependencies(p.root, undefined, true), /^nothing to remove: .*\(nothing written\)/);
    assert.equal(dump(p), after);
    assert.equal(repairRows(p).length, 1);
  });

  test('repair without any problem: nothing to remove, nothing written', () => {
    const p = env.sample();
    const before = dump(p);
    assert.equal(
      repairDependencies(p.root, undefined, true),
      'nothing to remove: no dependency on a missing task or on itself (nothing written)',
    );
    assert.equal(dump(p), before);
    assert.deepEqual(repairRows(p), []);
  });

  if (legacy)
    test('repair keeps every stored item it does not understand; ids written as strings count as ids', () => {
      const p = env.sample();
      exec(
        p,
        'legacy',
        `UPDATE tasks SET depends_on = '[3, 99, "100", {"id":1}, 2.5, "4", "x", 98.0]' WHERE id = 4`,
        '',
      );
      repairDependencies(p.root, undefined, true);
      assert.deepEqual(query(p, 'SELECT depends_on FROM tasks WHERE id = 4'), [{ depends_on: '[3,{"id":1},2.5,"x"]' }]);
    });
  else
    test('repair removes a row whose own task is gone (written with foreign keys off)', () => {
      const p = env.sample();
      exec(p, 'normalized', '', 'INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (123, 1);');
      assert.match(repairDependencies(p.root, undefined, true), /on a missing task: 123→1/);
      assert.deepEqual(query(p, 'SELECT id FROM task_dependencies WHERE task_id = 123'), []);
      assert.deepEqual(env.invariants(p), []);
    });
});
