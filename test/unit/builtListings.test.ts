import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REGISTRY } from '../../src/registry/registry.js';
import { RECIPES, RECIPE_NAMES } from '../../src/registry/recipes.js';
import { buildListings, toolListing, useBuiltListings } from '../../src/session/listing.js';
import { isNarrowed, narrowingKey } from '../../src/session/narrowing.js';
import { openSession } from '../../src/session/open.js';
import { GENERATIONS } from '../../src/store/records.js';
import { sampleProject } from '../helpers/project.js';
import { recipeFlags } from '../helpers/spec.js';

/**
 * The bundle lists tools from JSON Schemas computed at build time (scripts/serverBuild.mjs), the
 * narrowed ones included. For every recipe, with and without a task, on both generations, the listing
 * from that table must be byte for byte the listing computed at run time from the session's schemas.
 */
const built = buildListings(REGISTRY, RECIPES);

for (const generation of GENERATIONS) {
  test(`prebuilt listings, narrowed, equal zod's for every session tool [${generation}]`, () => {
    const project = sampleProject(generation);
    let compared = 0;
    let narrowed = 0;
    const launches: Record<string, string>[] = [{}, ...RECIPE_NAMES.map((r) => ({ recipe: r }))];
    for (const flags of launches) {
      for (const extra of [{}, { task: '3' }]) {
        const launch = { ...flags, ...extra };
        const discipline = flags.recipe && recipeFlags(flags.recipe).includes('--discipline') ? 'backend' : undefined;
        let session: ReturnType<typeof openSession>;
        try {
          session = openSession({ project: project.root, ...launch, ...(discipline ? { discipline } : {}) });
        } catch {
          continue; // a launch the recipe refuses (a task given to a recipe that takes none)
        }
        session.store.close();
        for (const t of session.plan.tools) {
          useBuiltListings(undefined);
          const want = JSON.stringify(toolListing(t));
          useBuiltListings(built);
          assert.equal(JSON.stringify(toolListing(t)), want, `${t.def.name} in ${JSON.stringify(launch)}`);
          compared++;
          if (isNarrowed(t.narrowing)) {
            assert.ok(narrowingKey(t.def.name, t.narrowing) in built.narrowed, `${t.def.name}: built ahead`);
            narrowed++;
          }
        }
        useBuiltListings(undefined);
      }
    }
    assert.ok(compared > 100 && narrowed > 20, `compared ${compared}, narrowed ${narrowed}`);
  });
}
