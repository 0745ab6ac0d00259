import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removedByFilters, resolveTools, unknownNames } from '../../src/registry/enabled.js';

const REG = ['a', 'b', 'c', 'd', 'e'];

test('resolveTools: the recipe selects in registry order, the discipline only removes, the rest is disabled', () => {
  // No recipe: the full registry, in registry order.
  assert.deepEqual(resolveTools(REG, null), { enabled: REG, disabled: [] });
  // The allow-list selects, keeping registry order (not allow-list order).
  assert.deepEqual(resolveTools(REG, ['d', 'b']), { enabled: ['b', 'd'], disabled: ['a', 'c', 'e'] });
  for (const [allowed, removed, enabled, why] of [
    [['a', 'b', 'c'], ['b'], ['a', 'c'], 'the discipline removes more'],
    [['a'], ['e', 'zzz'], ['a'], 'a discipline never adds what the recipe does not allow'],
    [['a', 'nope'], undefined, ['a'], 'allow-list names outside the registry never appear'],
    [[], undefined, [], 'empty allow-list: nothing enabled'],
  ] as const)
    assert.deepEqual(resolveTools(REG, [...allowed], removed && [...removed]).enabled, enabled, why);
  const r = resolveTools(REG, ['a', 'c', 'e'], ['c']);
  assert.deepEqual([...r.enabled, ...r.disabled].sort(), [...REG].sort(), 'enabled and disabled partition it');
  assert.deepEqual(unknownNames(REG, ['a', 'set_task_stauts', 'e']), ['set_task_stauts'], 'typos are found');
});

test('the launch filters only remove: --tools keeps its names, --exclude-tools and --read-only take away', () => {
  const readOnly = (n: string) => n === 'a' || n === 'b';
  const f = (readOnly_: boolean, only: string[] | null, exclude: string[]) =>
    resolveTools(REG, ['a', 'b', 'c'], removedByFilters(REG, { readOnly: readOnly_, only, exclude }, readOnly)).enabled;
  assert.deepEqual(f(false, null, []), ['a', 'b', 'c']);
  assert.deepEqual(f(true, null, []), ['a', 'b']);
  assert.deepEqual(f(false, ['c', 'e'], []), ['c'], 'e is outside the recipe: not added');
  assert.deepEqual(f(false, ['e'], []), []);
  assert.deepEqual(f(false, null, ['b', 'e']), ['a', 'c']);
  assert.deepEqual(f(true, ['a', 'c'], ['a']), []);
});
