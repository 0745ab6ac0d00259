import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHostile } from '../../scripts/stress/hostile.js';
import { GENERATIONS } from '../../src/store/records.js';

/**
 * The 10,000-task variant of `npm run stress`'s hostile module: a battery of hostile but valid requests
 * on one --socket connection while another pings. The timing acceptance lives in `npm run stress`; on
 * shared, noisy machines the bound here is one only a stall breaks. A refusal is a valid answer (a search
 * past its time budget says so); a crash or an internal error is not.
 */
const STALL_MS = 2_000;

for (const generation of GENERATIONS) {
  test(`hostile requests at 10,000 tasks stay bounded; pings on another connection answered [${generation}]`, {
    timeout: 120_000,
  }, async () => {
    const r = await runHostile(generation, 10_000);
    const slow = r.timings.filter((t) => t.ms > STALL_MS);
    assert.deepEqual(slow, [], `requests over ${STALL_MS} ms`);
    const broken = r.timings.filter(
      (t) => t.error !== undefined && t.error !== 'invalid_argument' && !t.error.includes('Unknown tool'),
    );
    assert.deepEqual(broken, [], 'only bounded refusals');
    assert.ok(r.pings.length > 5, `pings were sent (${r.pings.length})`);
    assert.ok(Math.max(...r.pings) < STALL_MS, `slowest ping ${Math.max(...r.pings).toFixed(1)} ms`);
    assert.ok(r.auditGrowth < 64 * 1024, `the 1 MB unknown-tool call grew the database by ${r.auditGrowth} bytes`);
  });
}
