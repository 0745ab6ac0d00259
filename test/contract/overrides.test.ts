import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { doctor } from '../../src/cli/doctor.js';
import { overrides } from '../../src/cli/overrides.js';
import { StartupError } from '../../src/domain/errors.js';
import type { Project } from '../../src/domain/project.js';
import { openStore } from '../../src/store/open/openStore.js';
import { query } from '../helpers/project.js';
import { RECIPE_TOOLS, RECIPES, inSpecOrder } from '../helpers/spec.js';
import { contract } from './harness.js';

/** Discipline overrides (mcp_tool_overrides, wherever a generation keeps them) remove tools; they never add any. */

/** Stores `raw` as the discipline's overrides, as is (malformed values too). */
function setOverrides(p: Project, discipline: string, raw: string): Project {
  const { store } = openStore(p.dbPath);
  store.ensureOwnTables();
  store.write(() => store.disciplines.writeToolOverrides(discipline, raw));
  store.close();
  return p;
}

contract('discipline overrides', (env) => {
  // documentation disables set_task_status and create_task everywhere, plus a tool no recipe below
  // needs; quality has no override at all.
  const disabled = ['set_task_status', 'create_task', 'get_project_info', 'delete_feature'];
  const project = setOverrides(env.sample(), 'documentation', JSON.stringify({ additional_disabled: disabled }));

  test("every recipe: with an override the set shrinks exactly; without one it is the recipe's", async () => {
    for (const recipe of RECIPES) {
      const expectedFull = inSpecOrder(RECIPE_TOOLS[recipe]!, env.generation);
      const gone = ['set_task_status', 'create_task', 'get_project_info'];
      const plain = await env.open({ recipe, discipline: 'quality' }, project);
      const docs = await env.open({ recipe, discipline: 'documentation' }, project);
      assert.deepEqual(await plain.toolNames(), expectedFull, recipe);
      const names = await docs.toolNames();
      assert.deepEqual(
        names,
        expectedFull.filter((t) => !gone.includes(t)),
        recipe,
      );
      assert.ok(!names.includes('delete_feature'), 'an override never adds a tool the recipe hides');
    }
  });

  test("a task session without --discipline uses the task's discipline overrides", async () => {
    const task = await env.open({ recipe: 'task_execution', task: '8' }, project); // task 8 is documentation's
    const names = await task.toolNames();
    assert.ok(!names.includes('set_task_status'));
    assert.ok(names.includes('add_task_comment'));
  });

  for (const [label, raw, pattern] of [
    ['naming an unknown tool', '{"additional_disabled": ["set_task_stauts"]}', /unknown tool\(s\): set_task_stauts/],
    [
      'malformed',
      '{"additional_disabled": "create_task"',
      /mcp_tool_overrides of discipline "quality" is not a JSON object/,
    ],
  ] as const) {
    test(`an override ${label} fails closed at startup`, async () => {
      const p = setOverrides(env.sample(), 'quality', raw);
      await assert.rejects(env.open({ recipe: 'yap', discipline: 'quality' }, p), (e: Error) => {
        assert.ok(e instanceof StartupError && e.exitCode === 2, String(e));
        assert.match(e.message, /^[^\n]*$/, 'one line');
        assert.match(e.message, pattern);
        return true;
      });
    });
  }
});

/** Deletes a discipline the way Ralph's app does (crates/sqlite-db disciplines.rs), behind our back. */
function deleteAsRalph(p: Project, name: string, before = ''): void {
  const db = new Database(p.dbPath);
  db.exec(`PRAGMA foreign_keys = ON; ${before}`);
  db.prepare('DELETE FROM disciplines WHERE name = ?').run(name);
  db.close();
}

const OPS = { name: 'ops', display_name: 'Ops', icon: 'Server', color: '#336699' };

contract('overrides die with their discipline', (env) => {
  test('a discipline Ralph deletes and someone creates again starts without the old overrides', async () => {
    const p = env.sample();
    await (await env.open({}, p)).ok('create_discipline', OPS);
    setOverrides(p, 'ops', JSON.stringify({ additional_disabled: ['create_task'] }));
    assert.ok(!(await (await env.open({ recipe: 'yap', discipline: 'ops' }, p)).toolNames()).includes('create_task'));
    deleteAsRalph(p, 'ops');
    await (await env.open({}, p)).ok('create_discipline', OPS);
    const again = await env.open({ recipe: 'yap', discipline: 'ops' }, p);
    assert.deepEqual(await again.toolNames(), inSpecOrder(RECIPE_TOOLS.yap!, env.generation));
    const left =
      env.generation === 'normalized'
        ? "SELECT count(*) AS n FROM ralph_mcp_discipline_overrides WHERE discipline = 'ops'"
        : "SELECT count(*) AS n FROM disciplines WHERE name = 'ops' AND mcp_tool_overrides IS NOT NULL";
    assert.deepEqual(query(p, left), [{ n: 0 }]);
    assert.match(doctor(p.root).text, /✓ overrides of deleted disciplines +none/);
  });
});

contract(
  'overrides left by a deleted discipline',
  (env) => {
    test('doctor names them, overrides --clear removes them, and the next write of our tables does too', async () => {
      const p = env.sample();
      const full = await env.open({}, p);
      for (const name of ['ops', 'ops-2']) await full.ok('create_discipline', { ...OPS, name });
      for (const name of ['ops', 'ops-2'])
        setOverrides(p, name, JSON.stringify({ additional_disabled: ['create_task'] }));
      // As on a file whose trigger was lost (a rebuild of Ralph's table drops the triggers on it).
      deleteAsRalph(p, 'ops', 'DROP TRIGGER ralph_mcp_overrides_discipline_ad;');
      const flagged = doctor(p.root);
      assert.match(flagged.text, /✗ overrides of deleted disciplines +kept for ops: .*--clear/);
      assert.equal(flagged.ok, false);
      assert.match(
        overrides({ project: p.root, discipline: 'ops', clear: true }),
        /^removed the overrides of ops, a discipline that no longer exists$/,
      );
      assert.deepEqual(query(p, 'SELECT discipline FROM ralph_mcp_discipline_overrides'), [{ discipline: 'ops-2' }]);
      assert.match(doctor(p.root).text, /✓ overrides of deleted disciplines +none/);
      // Making our tables again (any write session does) restores the trigger and drops orphans.
      deleteAsRalph(p, 'ops-2', 'DROP TRIGGER ralph_mcp_overrides_discipline_ad;');
      const { store } = openStore(p.dbPath);
      store.ensureOwnTables();
      store.close();
      assert.deepEqual(query(p, 'SELECT discipline FROM ralph_mcp_discipline_overrides'), []);
      assert.equal(
        query(p, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'ralph_mcp_overrides_discipline_ad'")[0]!.n,
        1,
      );
    });
  },
  ['normalized'],
);
