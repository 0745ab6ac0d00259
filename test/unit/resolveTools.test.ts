import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveTools, unknownNames } from '../../src/registry/enabled.js';

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
});
