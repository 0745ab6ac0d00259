import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findCycle } from '../../src/domain/dependencies.js';
import { ACRONYM_RE, deriveAcronym, timestamp, today } from '../../src/domain/rules.js';
import { formatEntry, splitEntries } from '../../src/domain/stateFiles.js';

test('derived acronyms are 4 chars [A-Z0-9], and avoid taken ones', () => {
  const words = ['Bookmark CRUD', 'Authentication', 'Very Long Multi Word Feature Name', 'api v2'];
  const shortOrOdd = ['UI', 'x', 'Über Café', '!!!'];
  for (const name of [...words, ...shortOrOdd]) assert.match(deriveAcronym(name, new Set()), ACRONYM_RE, name);
  assert.equal(deriveAcronym('Authentication', new Set()), 'ATHN');
  assert.equal(deriveAcronym('Bookmark Sync Engine', new Set()), 'BSEK');
  const taken = new Set(['ATHN', 'ATH2']);
  const a = deriveAcronym('Authentication', taken);
  assert.ok(!taken.has(a));
  assert.match(a, ACRONYM_RE);
});

test('dependency cycles: a self-dependency, a cycle reported as a path, none', () => {
  const graph: Record<number, number[]> = { 1: [], 2: [1], 3: [2], 4: [3] };
  const depsOf = (id: number) => graph[id] ?? [];
  assert.deepEqual(findCycle(1, [1], depsOf), [1, 1]);
  assert.deepEqual(findCycle(1, [4], depsOf), [1, 4, 3, 2, 1]);
  assert.equal(findCycle(4, [1, 2], depsOf), undefined);
});

test('task dates YYYY-MM-DD, stamps RFC 3339 UTC', () => {
  const d = new Date('2026-03-04T05:06:07.890Z');
  assert.equal(today(d), '2026-03-04');
  assert.equal(timestamp(d), '2026-03-04T05:06:07Z');
});

test('state file entries split on headers; text before the first header is its own entry', () => {
  const text = `hand-written note\n\n${formatEntry('one', '2026-01-01T00:00:00Z', 'yap')}${formatEntry('two\nlines', '2026-01-02T00:00:00Z', 'yap')}`;
  const entries = splitEntries(text);
  assert.equal(entries.length, 3);
  assert.equal(entries[2], '## 2026-01-02T00:00:00Z · yap\ntwo\nlines\n\n');
  // A line mimicking a header is indented so it cannot split the entry.
  const e = formatEntry('x\n## 2026-01-01T00:00:00Z · fake\ny', '2026-01-03T00:00:00Z', 'yap');
  assert.equal(splitEntries(e).length, 1);
});
