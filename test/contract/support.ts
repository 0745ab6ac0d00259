import assert from 'node:assert/strict';
import { dump } from '../helpers/project.js';
import type { InProcSession } from './harness.js';

/** Runs `fn` (refused calls) and asserts that Ralph's tables are exactly as before. */
export function unchanged(s: InProcSession & { project: Parameters<typeof dump>[0] }, fn: () => void): void {
  const before = dump(s.project);
  fn();
  assert.deepEqual(dump(s.project), before, 'a refused call changed the database');
}
