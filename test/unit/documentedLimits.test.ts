import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { limitRows, type LimitRow } from '../../scripts/stress/fuzz.js';
import { REPO } from '../helpers/env.js';

/**
 * The limits the reference documents, written out by hand from its "Limits" table (not derived from the
 * code): fuzz.args probes every limit the schemas have, one over and exactly at it, but a limit raised
 * in the code would be probed at its new value. Here each one must equal what the documentation says.
 * Keys: `tool.field` where a field's limit differs by tool, else the field (list items end in `[]`).
 */
const CHARACTERS: Record<string, number> = {
  color: 7,
  cursor: 32,
  updated_since: 40,
  filter_tag: 1_000,
  ...Object.fromEntries(
    [
      'feature',
      'discipline',
      'name',
      'feature_name',
      'icon',
      'filter_feature',
      'filter_discipline',
      'held_by',
      'fields[]',
    ].map((f) => [f, 64]),
  ),
  title: 200,
  display_name: 200,
  ...Object.fromEntries(
    [
      'context_files[]',
      'knowledge_paths[]',
      'add_context_files[]',
      'remove_context_files[]',
      'file_path',
      'query',
      'command',
    ].map((f) => [f, 500]),
  ),
  ...Object.fromEntries(
    ['acceptance_criteria[]', 'tags[]', 'output_artifacts[]', 'skills[]', 'dependencies[]', 'options[]', 'args[]'].map(
      (f) => [f, 1_000],
    ),
  ),
  'append_feature_learning.reason': 1_000,
  'append_feature_learning.summary': 1_000,
  'report_blocker.reason': 2_000,
  'update_task.blocked_by': 2_000,
  'skip_task.reason': 2_000,
  'set_task_status.reason': 2_000,
  'release_task.reason': 2_000,
  'signal_abort.reason': 2_000,
  'append_feature_learning.text': 2_000,
  'append_learning.text': 8_000,
  'append_progress.text': 8_000,
  body: 10_000,
  ...Object.fromEntries(
    ['description', 'hints', 'architecture', 'boundaries', 'conventions', 'system_prompt'].map((f) => [f, 20_000]),
  ),
  ...Object.fromEntries(
    [
      'summary',
      'remaining',
      'stuck.reason',
      'question',
      'preferred',
      'what',
      'why',
      'learned.text',
      'rationale',
      'on',
      'detail',
    ].map((f) => [f, 20_000]),
  ),
  pseudocode: 50_000,
};
/** Every list holds 100 items, except these. */
const ITEMS: Record<string, number> = { 'spawn_subtasks.tasks': 20, after: 20, 'ask.options': 20 };
const RANGES: Record<string, [number, number]> = {
  'list_tasks.limit': [1, 500],
  'next_tasks.limit': [1, 20],
  'search_tasks.limit': [1, 100],
  'blocked_tasks.limit': [1, 100],
  'get_task.comment_limit': [1, 100],
  'task_history.limit': [1, 200],
  last: [1, 1_000],
  estimated_turns: [1, 1_000],
  depth: [1, 10],
  'after[]': [0, 19],
};

const leaf = (field: string) => field.replace(/^.*\./, '');
function documented<T>(table: Record<string, T>, row: LimitRow): T | undefined {
  return table[`${row.tool}.${leaf(row.field)}`] ?? table[leaf(row.field)];
}

test('every limit in the code is the one the reference documents', () => {
  const wrong: string[] = [];
  for (const row of limitRows()) {
    const where = `${row.tool}.${row.field}`;
    if (row.kind === 'characters') {
      const doc = documented(CHARACTERS, row);
      if (doc !== row.max)
        wrong.push(`${where}: ${row.max} characters in the code, ${doc ?? 'undocumented'} in docs/reference.md`);
    } else if (row.kind === 'items') {
      const doc = documented(ITEMS, row) ?? 100;
      if (doc !== row.max) wrong.push(`${where}: ${row.max} items in the code, ${doc} in docs/reference.md`);
    } else {
      const doc = documented(RANGES, row);
      if (!doc || doc[0] !== row.min || doc[1] !== row.max)
        wrong.push(
          `${where}: ${row.min}–${row.max} in the code, ${doc ? doc.join('–') : 'undocumented'} in docs/reference.md`,
        );
    }
  }
  assert.deepEqual(wrong, []);
});

test("the table above is docs/reference.md's: each number and field appears in its Limits section", () => {
  const readme = readFileSync(join(REPO, 'docs', 'reference.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Limits'), readme.indexOf('\n## ', readme.indexOf('### Limits')));
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && /\d/.test(l));
  const named = (field: string, n: number) =>
    rows.some((r) => r.includes(`\`${leaf(field)}\``) && (r.includes(n.toLocaleString('en-US')) || r.includes(`${n}`)));
  const missing = [
    ...Object.entries(CHARACTERS).filter(([f, n]) => !named(f, n)),
    ...Object.entries(ITEMS).filter(([f, n]) => !named(f, n)),
  ].map(([f, n]) => `${f} (${n})`);
  assert.deepEqual(missing, [], 'documented in the test, not in docs/reference.md');
});
