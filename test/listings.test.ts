import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REGISTRY } from '../src/registry/registry.js';
import { RECIPE_NAMES } from '../src/registry/recipes.js';
import { jsonSchema, narrowedInput, prebuildListings } from '../src/session/listing.js';
import { openSession } from '../src/session/open.js';
import { GENERATIONS } from '../src/store/records.js';
import { sampleProject } from './helpers/project.js';
import { recipeFlags } from './helpers/spec.js';

/**
 * The bundle lists tools from JSON Schemas computed at build time (scripts/bundle.mjs), narrowed per
 * session by replaying what plan.ts did to the zod schema. For every recipe, with and without a task,
 * on both generations, that replay must give byte for byte what zod gives for the session's schema.
 */
const prebuilt = prebuildListings(REGISTRY);

for (const generation of GENERATIONS) {
  test(`prebuilt listings, narrowed, equal zod's for every session tool [${generation}]`, () => {
    const project = sampleProject(generation);
    let compared = 0;
    let narrowed = 0;
    const launches: Record<string, string>[] = [{}, ...RECIPE_NAMES.map((r) => ({ recipe: r }))];
    for (const flags of launches) {
      for (const extra of [{}, { task: '3' }]) {
        let session: ReturnType<typeof openSession>;
        try {
          session = openSession({
            project: project.root,
            ...flags,
            ...(flags.recipe && recipeFlags(flags.recipe).includes('--discipline') ? { discipline: 'backend' } : {}),
            ...extra,
          });
        } catch {
          continue; // a launch the recipe refuses (a task given to a recipe that takes none)
        }
        const { plan, store } = session;
        store.close();
        for (const t of plan.tools) {
          const want = JSON.stringify(jsonSchema(t.input, 'input'));
          assert.equal(
            JSON.stringify(narrowedInput(prebuilt[t.def.name]!.input, t.narrowing)),
            want,
            `${t.def.name} in ${JSON.stringify({ ...flags, ...extra })}`,
          );
          compared++;
          if (t.narrowing.keep || t.narrowing.optional.length > 0) narrowed++;
        }
      }
    }
    assert.ok(compared > 100 && narrowed > 20, `compared ${compared}, narrowed ${narrowed}`);
  });
}
