import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checkProjectPath } from '../../src/domain/paths.js';
import { ToolError } from '../../src/domain/errors.js';

const root = mkdtempSync(join(tmpdir(), 'ralph-paths-'));
mkdirSync(join(root, 'src'));
symlinkSync('/etc', join(root, 'etc-link'));
symlinkSync(join(root, 'src'), join(root, 'inside-link'));

const refused = (p: string) =>
  assert.throws(
    () => checkProjectPath(root, p),
    (e: unknown) => e instanceof ToolError && e.code === 'invalid_argument',
    p,
  );

describe('project path checks', () => {
  test('relative paths inside the project are accepted and canonicalised', () => {
    assert.equal(checkProjectPath(root, 'src/app.ts'), 'src/app.ts');
    assert.equal(checkProjectPath(root, './src//app.ts'), 'src/app.ts');
    assert.equal(checkProjectPath(root, 'docs/not-yet-there.md'), 'docs/not-yet-there.md');
    assert.equal(checkProjectPath(root, 'inside-link/x.ts'), 'inside-link/x.ts');
  });

  test('escapes are refused', () => {
    for (const p of [
      '../x',
      'src/../../x',
      '/etc/passwd',
      '~/x',
      '~',
      'src\\..\\x',
      'C:/x',
      '%2e%2e/x',
      'a\0b',
      'etc-link/passwd',
      'etc-link',
      '.',
      './',
    ])
      refused(p);
  });

  test("no `..` segment at all, even one that stays inside the project (the README's rule)", () => {
    for (const p of ['src/../a.ts', 'src/..', 'a/b/../../c.ts', './src/../src/app.ts', 'src/./../a.ts']) refused(p);
  });
});
