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
 * Keys: `tool.field` where a field's limit differs by tool, else the field (list items end in `[]`); CHARACTERS
 * lists them, space-separated, under each documented number.
 */
const CHARACTERS: Record<string, number> = Object.fromEntries(
  (
    [
      [7, 'color'],
      [32, 'cursor'],
      [40, 'updated_since'],
      [64, 'feature discipline name feature_name icon filter_feature filter_discipline held_by fields[]'],
      [200, 'title display_name'],
      [500, 'context_files[] knowledge_paths[] add_context_files[] remove_context_files[] file_path query command'],
      [1_000, 'filter_tag acceptance_criteria[] tags[] output_artifacts[] skills[] dependencies[] options[] args[]'],
      [1_000, 'append_feature_learning.reason append_feature_learning.summary'],
      [2_000, 'report_blocker.reason update_task.blocked_by skip_task.reason set_task_status.reason'],
      [2_000, 'release_task.reason signal_abort.reason append_feature_learning.text'],
      [8_000, 'append_learning.text append_progress.text'],
      [10_000, 'body'],
      [20_000, 'description hints architecture boundaries conventions system_prompt summary remaining stuck.reason'],
      [20_000, 'question preferred what why learned.text rationale on detail'],
      [50_000, 'pseudocode'],
    ] as const
  ).flatMap(([n, fields]) => fields.split(' ').map((f) => [f, n])),
);
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
  const wrong = limitRows().flatMap((row) => {
    const [code, doc] =
      row.kind === 'characters'
        ? [`${row.max} characters`, `${documented(CHARACTERS, row) ?? 'undocumented'} characters`]
        : row.kind === 'items'
          ? [`${row.max} items`, `${documented(ITEMS, row) ?? 100} items`]
          : [`${row.min}–${row.max}`, documented(RANGES, row)?.join('–') ?? 'undocumented'];
    return code === doc ? [] : [`${row.tool}.${row.field}: ${code} in the code, ${doc} in docs/reference.md`];
  });
  assert.deepEqual(wrong, []);
});

test("the table above is docs/reference.md's: each number and field appears in its Limits section", () => {
  const readme = readFileSync(join(REPO, 'docs', 'reference.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Limits'), readme.indexOf('\n## ', readme.indexOf('### Limits')));
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && /\d/.test(l));
  const named = (field: string, n: number) =>
    rows.some((r) => r.includes(`\`${leaf(field)}\``) && (r.includes(n.toLocaleString('en-US')) || r.includes(`${n}`)));
  const missing = [...Object.entries(CHARACTERS), ...Object.entries(ITEMS)]
    .filter(([f, n]) => !named(f, n))
    .map(([f, n]) => `${f} (${n})`);
  assert.deepEqual(missing, [], 'documented in the test, not in docs/reference.md');
});
