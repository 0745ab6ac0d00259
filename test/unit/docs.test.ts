import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/env.js';

test('docs/tools.md is what the registry generates (npm run docs)', () => {
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'docs.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
