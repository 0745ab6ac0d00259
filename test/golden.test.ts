import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { GOLDEN_DIR, updateGolden } from './helpers/env.js';
import { sampleProject } from './helpers/project.js';
import { startSession } from './helpers/server.js';
import { ALL_TOOLS, RECIPE_TOOLS, RECIPES, recipeFlags, inSpecOrder } from './helpers/spec.js';
import { GENERATIONS } from '../src/store/records.js';

/**
 * Golden `tools/list` per recipe (and for the full suite), per schema generation: the legacy ones in
 * test/golden/, the normalized ones (where descriptions say "feature (subsystem)") in
 * test/golden/normalized/. A changed snapshot fails until it is deliberately regenerated with
 * `npm run test:update-golden` and reviewed as a diff.
 */
const UPDATE = updateGolden();
const project = sampleProject();
const sizes: string[] = [];

for (const generation of GENERATIONS)
  for (const recipe of [...RECIPES, null]) {
    const label = recipe ?? 'full-suite';
    const dir = generation === 'legacy' ? GOLDEN_DIR : join(GOLDEN_DIR, generation);
    const onProject = generation === 'legacy' ? project : sampleProject(generation);
    test(`golden tools/list: ${label} [${generation}]`, async () => {
      const s = await startSession(onProject, recipe ? recipeFlags(recipe) : []);
      try {
        const { tools } = await s.client.listTools();
        const names = tools.map((t) => t.name);
        assert.deepEqual(
          names,
          recipe ? inSpecOrder(RECIPE_TOOLS[recipe]!) : [...ALL_TOOLS],
          'tool set and order match SPEC-070',
        );
        const visible = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
        sizes.push(
          `${`${label} [${generation}]`.padEnd(28)} ${String(tools.length).padStart(3)} tools  ${String(JSON.stringify({ tools }).length).padStart(7)} bytes tools/list  ${String(JSON.stringify(visible).length).padStart(6)} bytes name+description+inputSchema`,
        );
        const file = join(dir, `${label}.tools.json`);
        const actual = `${JSON.stringify(tools, null, 2)}\n`;
        if (UPDATE) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(file, actual);
          return;
        }
        assert.ok(existsSync(file), `missing snapshot ${file}: run npm run test:update-golden`);
        assert.equal(
          actual,
          readFileSync(file, 'utf8'),
          `tools/list for ${label} changed: review, then npm run test:update-golden`,
        );
      } finally {
        await s.close();
      }
    });
  }

// Growth stays visible: every run prints each recipe's tool count and tools/list size.
after(() => {
  process.stderr.write(`\ntools/list per recipe:\n${sizes.map((l) => `  ${l}`).join('\n')}\n`);
});

describe('opus_review sees a narrowed update_task', () => {
  test('only id, priority and description; other fields are refused as unknown', async () => {
    const s = await startSession(project, ['--recipe', 'opus_review']);
    try {
      const tool = (await s.client.listTools()).tools.find((t) => t.name === 'update_task')!;
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), ['description', 'id', 'priority']);
      const before = (await s.ok('get_task', { id: 5 })).task;
      const err = await s.fail('update_task', { id: 5, title: 'nope' });
      assert.equal(err.code, 'invalid_argument');
      assert.match(err.message, /unknown field\(s\) "title"; allowed fields: id, priority, description/);
      assert.deepEqual((await s.ok('get_task', { id: 5 })).task, before);
      const ok = await s.ok('update_task', { id: 5, priority: 'low' });
      assert.equal(ok.task.priority, 'low');
    } finally {
      await s.close();
    }
  });
});
