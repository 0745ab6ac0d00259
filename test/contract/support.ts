import assert from 'node:assert/strict';
import { dump } from '../helpers/project.js';
import type { InProcSession } from './harness.js';

/** Runs `fn` (refused calls) and asserts that Ralph's tables are exactly as before. */
export async function unchanged(s: InProcSession, fn: () => Promise<unknown>): Promise<void> {
  const before = dump(s.project);
  await fn();
  assert.deepEqual(dump(s.project), before, 'a refused call changed the database');
}
