import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionTool } from '../../src/session/plan.js';
import { REPO } from '../helpers/env.js';
import { matchesSnapshot } from '../helpers/snapshot.js';
import { named, patchFrom, shapesIn } from '../helpers/snapshotShapes.js';
import { ALL_TOOLS, RECIPE_TOOLS, RECIPES, inSpecOrder, NEEDS_DISCIPLINE } from '../helpers/spec.js';
import { contract } from './harness.js';

/**
 * tools/list, per recipe and for the full suite, on both generations: the tool set and its order are
 * SPEC-070's (helpers/spec.ts, written by hand), and each tool's entry is its snapshot,
 * test/snapshots/tools/<tool>.json, or the snapshot of its variant where the session changes it:
 * `.subsystem` (the normalized generation says "feature (subsystem)"), `.<recipe>` (the recipe keeps
 * some of its arguments), `.claims` / `.task` / `.feature` (an argument the session fills in), kept as the
 * patch from the tool's own snapshot. Shapes many tools share are in test/snapshots/shapes.json, once
 * (helpers/snapshotShapes.ts). The tools only Ralph's normalized schema has are expected only there.
 */
const DIR = join(REPO, 'test', 'snapshots', 'tools');
const readSnapshot = (file: string): unknown => JSON.parse(readFileSync(join(DIR, file), 'utf8'));

/** The snapshot a session's entry for this tool must equal. */
function snapshotName(t: SessionTool, recipe: string | null, anchor: string | null): string {
  const parts = [t.def.name];
  if (t.description !== t.def.description) parts.push('subsystem');
  if (t.narrowing.keep) parts.push(recipe!);
  if (t.narrowing.optional.length > 0) parts.push(anchor!);
  return `${parts.join('.')}.json`;
}

contract('tools/list', (env) => {
  let shapes: Record<string, unknown> | undefined;
  /** The shared shapes as this generation's full suite lists them. */
  const sharedShapes = async () => {
    const { tools } = await (await env.open({})).client.listTools();
    shapes ??= shapesIn(new Map(tools.map((t) => [t.name, t])));
    return shapes;
  };

  test('the shapes tools share, each written once (one shape may name another)', async () => {
    const all = await sharedShapes();
    const others = (name: string) => Object.fromEntries(Object.entries(all).filter(([n]) => n !== name));
    const once = Object.fromEntries(Object.entries(all).map(([n, v]) => [n, named(v, others(n))]));
    matchesSnapshot(join(DIR, '..', 'shapes.json'), once, `shared shapes [${env.generation}]`);
  });

  // The full suite first: it writes each tool's own snapshot, which its variants are patches of.
  for (const recipe of [null, ...RECIPES]) {
    const label = recipe ?? 'full suite';
    test(`${label}: SPEC-070's tools in order, each its snapshot`, async () => {
      const flags = recipe ? { recipe, ...(NEEDS_DISCIPLINE.includes(recipe) ? { discipline: 'backend' } : {}) } : {};
      const s = await env.open(flags);
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      assert.deepEqual(names, inSpecOrder(recipe ? RECIPE_TOOLS[recipe]! : ALL_TOOLS, env.generation));
      const anchor = s.plan.task ? 'task' : s.plan.recipe?.claimsTasks ? 'claims' : s.plan.feature ? 'feature' : null;
      const shared = await sharedShapes();
      for (const entry of tools) {
        const st = s.plan.tools.find((t) => t.def.name === entry.name)!;
        const file = snapshotName(st, recipe, anchor);
        const mine = named(entry, shared);
        const own = `${entry.name}.json`;
        const value = file === own ? mine : patchFrom(readSnapshot(own), mine);
        matchesSnapshot(join(DIR, file), value, `${entry.name} (${file}) in ${label} [${env.generation}]`);
      }
    });
  }

  test('opus_review sees update_task narrowed: other fields are refused as unknown', async () => {
    const s = await env.open({ recipe: 'opus_review' });
    const tool = (await s.client.listTools()).tools.find((t) => t.name === 'update_task')!;
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), ['description', 'id', 'priority']);
    const before = (await s.ok('get_task', { id: 5 })).task;
    const err = await s.fail('update_task', { id: 5, title: 'nope' });
    assert.equal(err.code, 'invalid_argument');
    assert.match(err.message, /unknown field\(s\) "title"; allowed fields: id, priority, description/);
    assert.deepEqual((await s.ok('get_task', { id: 5 })).task, before);
    assert.equal((await s.ok('update_task', { id: 5, priority: 'low' })).task.priority, 'low');
  });
});
