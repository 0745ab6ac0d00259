import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { removedByFilters, resolveTools, unknownNames } from '../../src/registry/enabled.js';

const REG = ['a', 'b', 'c', 'd', 'e'];

describe('resolveTools (pure)', () => {
  test('no recipe: the full registry, in registry order', () => {
    assert.deepEqual(resolveTools(REG, null), { enabled: REG, disabled: [] });
  });

  test('the recipe allow-list selects, keeping registry order (not allow-list order)', () => {
    assert.deepEqual(resolveTools(REG, ['d', 'b']), { enabled: ['b', 'd'], disabled: ['a', 'c', 'e'] });
  });

  test('the discipline removes more', () => {
    assert.deepEqual(resolveTools(REG, ['a', 'b', 'c'], ['b']).enabled, ['a', 'c']);
  });

  test('a discipline can never add what the recipe does not allow (strictly reductive)', () => {
    const r = resolveTools(REG, ['a'], ['e', 'zzz']);
    assert.deepEqual(r.enabled, ['a']);
    assert.ok(!r.enabled.includes('e'));
  });

  test('allow-list names outside the registry never appear', () => {
    assert.deepEqual(resolveTools(REG, ['a', 'nope']).enabled, ['a']);
  });

  test('enabled and disabled partition the registry', () => {
    const r = resolveTools(REG, ['a', 'c', 'e'], ['c']);
    assert.deepEqual([...r.enabled, ...r.disabled].sort(), [...REG].sort());
  });

  test('empty allow-list: nothing enabled', () => {
    assert.deepEqual(resolveTools(REG, []).enabled, []);
  });

  test('unknownNames finds typos', () => {
    assert.deepEqual(unknownNames(REG, ['a', 'set_task_stauts', 'e']), ['set_task_stauts']);
  });

  test('the launch filters only remove: --tools keeps its names, --exclude-tools and --read-only take away', () => {
    const readOnly = (n: string) => n === 'a' || n === 'b';
    const f = (readOnly_: boolean, only: string[] | null, exclude: string[]) =>
      resolveTools(REG, ['a', 'b', 'c'], removedByFilters(REG, { readOnly: readOnly_, only, exclude }, readOnly))
        .enabled;
    assert.deepEqual(f(false, null, []), ['a', 'b', 'c']);
    assert.deepEqual(f(true, null, []), ['a', 'b']);
    assert.deepEqual(f(false, ['c', 'e'], []), ['c'], 'e is outside the recipe: not added');
    assert.deepEqual(f(false, ['e'], []), []);
    assert.deepEqual(f(false, null, ['b', 'e']), ['a', 'c']);
    assert.deepEqual(f(true, ['a', 'c'], ['a']), []);
  });
});
