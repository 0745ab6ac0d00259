import assert from 'node:assert/strict';
import { dump } from '../helpers/project.js';
import type { InProcSession } from './harness.js';

/** Runs `fn` (refused calls) and asserts that Ralph's tables are exactly as before. */
export async function unchanged(s: InProcSession, fn: () => Promise<unknown>): Promise<void> {
  const before = dump(s.project);
  await fn();
  assert.deepEqual(dump(s.project), before, 'a refused call changed the database');
}

/** Each call must fail with `code`, and all of them together leave Ralph's tables as they were. */
export async function refused(s: InProcSession, code: string, tool: string, ...argsList: Record<string, unknown>[]) {
  const errors: { code: string; message: string; details?: any }[] = [];
  await unchanged(s, async () => {
    for (const args of argsList) {
      const e = await s.fail(tool, args);
      assert.equal(e.code, code, `${tool} ${JSON.stringify(args)}: ${e.message}`);
      errors.push(e);
    }
  });
  return errors;
}
