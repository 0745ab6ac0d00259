import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHostile } from '../scripts/stress/hostile.js';
import { GENERATIONS } from '../src/store/records.js';

/**
 * The 10,000-task variant of `npm run stress`'s hostile module (100,000 tasks there): a
 * generated project with a deep dependency chain and a row of 300,000 dependencies, served on a shared
 * --socket; a battery of hostile but valid requests (one-letter word floods, FTS operators, every
 * status filter, deep chains, 1 MB unknown tool names) on one connection while another pings.
 * A timed test on purpose, with generous margins for a shared machine: no request may take 500 ms (the
 * 100k acceptance), no ping 250 ms (100 ms at 100k, where nothing else runs). A refusal is a valid
 * answer (a search past its time budget says so); a crash or an internal error is not.
 */
for (const generation of GENERATIONS) {
  test(`hostile requests at 10,000 tasks stay bounded; pings on another connection answered [${generation}]`, { timeout: 120_000 }, async () => {
    const r = await runHostile(generation, 10_000);
    const slow = r.timings.filter((t) => t.ms > 500);
    assert.deepEqual(slow, [], 'requests over 500 ms');
    const broken = r.timings.filter((t) => t.error !== undefined && !['invalid_argument'].includes(t.error) && !t.error.includes('Unknown tool'));
    assert.deepEqual(broken, [], 'only bounded refusals');
    assert.ok(r.pings.length > 5, `pings were sent (${r.pings.length})`);
    assert.ok(Math.max(...r.pings) < 250, `slowest ping ${Math.max(...r.pings).toFixed(1)} ms`);
    assert.ok(r.auditGrowth < 64 * 1024, `the 1 MB unknown-tool call grew the database by ${r.auditGrowth} bytes`);
  });
}
