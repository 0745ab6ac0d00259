import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickRow, rowKeys } from '../../src/tools/rowFields.js';

// A list longer than a read returns (over 1,000 items) is rare enough that no contract fixture has one.
test('a truncation marker stays with the list it marks, and only with it', () => {
  const row = { id: 1, title: 't', depends_on: [2], truncated_lists: ['depends_on'] };
  assert.deepEqual(pickRow(row, rowKeys(['depends_on'], ['id', 'title', 'depends_on'])), {
    id: 1,
    depends_on: [2],
    truncated_lists: ['depends_on'],
  });
  assert.deepEqual(pickRow(row, rowKeys(['title'], ['id', 'title', 'depends_on'])), { id: 1, title: 't' });
  assert.equal(pickRow(row, rowKeys(undefined, ['id'])), row, 'no selection: the row itself');
});
