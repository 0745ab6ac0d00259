import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { holdsExactly, openOwnFile } from '../../src/startup/cacheDir.js';
import { tempDir } from '../helpers/project.js';

// The single executable loads its cached addon only if the descriptor it will load holds the bytes the
// build embedded (src/startup/sea.ts): a file of the right name and size is not enough.
const ADDON = Buffer.from('\x7fELF pretend addon bytes, 2 MB in real life'.repeat(50_000));
const expected = { sha256: createHash('sha256').update(ADDON).digest('hex'), bytes: ADDON.length };

const check = (bytes: Buffer): boolean => {
  const file = join(tempDir('ralph-cache-'), 'better_sqlite3-x.node');
  writeFileSync(file, bytes, { mode: 0o600 });
  const own = openOwnFile(file, expected.bytes);
  assert.ok(own, 'an own, owner-only file of at most the size opens');
  try {
    return holdsExactly(own.fd, expected);
  } finally {
    closeSync(own.fd);
  }
};

test('the addon as built is accepted; a same-size file with other bytes, or a shorter one, is refused', () => {
  assert.equal(check(ADDON), true);
  const planted = Buffer.from(ADDON);
  const mid = planted.length >> 1;
  planted[mid] = planted[mid]! ^ 1;
  assert.equal(planted.length, expected.bytes);
  assert.equal(check(planted), false, 'one byte changed');
  assert.equal(check(ADDON.subarray(0, ADDON.length - 1)), false, 'a prefix of the addon');
  assert.equal(check(Buffer.alloc(0)), false);
});
