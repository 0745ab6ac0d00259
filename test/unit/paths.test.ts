import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkProjectPath } from '../../src/domain/paths.js';
import { ToolError } from '../../src/domain/errors.js';

const root = mkdtempSync(join(tmpdir(), 'ralph-paths-'));
mkdirSync(join(root, 'src'));
symlinkSync('/etc', join(root, 'etc-link'));
symlinkSync(join(root, 'src'), join(root, 'inside-link'));

const isInvalid = (e: unknown) => e instanceof ToolError && e.code === 'invalid_argument';
const refused = (p: string) => assert.throws(() => checkProjectPath(root, p), isInvalid, p);

test('relative paths inside the project are accepted and canonicalised', () => {
  assert.equal(checkProjectPath(root, 'src/app.ts'), 'src/app.ts');
  assert.equal(checkProjectPath(root, './src//app.ts'), 'src/app.ts');
  assert.equal(checkProjectPath(root, 'docs/not-yet-there.md'), 'docs/not-yet-there.md');
  assert.equal(checkProjectPath(root, 'inside-link/x.ts'), 'inside-link/x.ts');
});

test("escapes are refused, and any `..` segment, even one that stays inside (the README's rule)", () => {
  const escapes = ['../x', 'src/../../x', '/etc/passwd', '~/x', '~', 'src\\..\\x', 'C:/x', '%2e%2e/x', 'a\0b'];
  const linkOrRoot = ['etc-link/passwd', 'etc-link', '.', './'];
  const dotDot = ['src/../a.ts', 'src/..', 'a/b/../../c.ts', './src/../src/app.ts', 'src/./../a.ts'];
  for (const p of [...escapes, ...linkOrRoot, ...dotDot]) refused(p);
});
