import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { FIXTURE_SKIP } from '../helpers/env.js';
import { dump, fixtureProject, query } from '../helpers/project.js';
import { SPEC_070_TOOLS, type ALL_TOOLS } from '../helpers/spec.js';
import { openInProc, type InProcSession } from './harness.js';

/**
 * All 28 tools, each with a happy path and an error path, on a temp copy of Ralph's own
 * 04-desktop-dev.db (5 features, 8 disciplines, 20 tasks, 15 comments). Happy paths are checked by
 * reading the rows back with SQL; error paths by their code and an unchanged database and state files.
 * Cases run in order and build on each other (e.g. the draft task created for enrich_task). In-process;
 * the head (normalized) fixture's counterpart is headFixtures.test.ts.
 */
type Row = Record<string, any>;
type Args = Record<string, unknown>;
interface Case {
  tool: (typeof ALL_TOOLS)[number];
  ok: Args;
  err: Args;
  code: string;
  check: (r: Row, p: Project) => void;
}

const CASES: Case[] = [];
/** A tool's happy call, whose result and rows `check` reads, then a call refused with `code`. */
const tool = (name: Case['tool'], ok: Args, err: Args, code: string, check: Case['check']) =>
  CASES.push({ tool: name, ok, err, code, check });

const one = (p: Project, text: string, ...params: unknown[]): Row => query<Row>(p, text, ...params)[0]!;
const ids = (list: Row[]) => list.map((x) => x.id);
const count = (p: Project, text: string) => one(p, `SELECT count(*) AS n FROM ${text}`).n;
const today = () => new Date().toISOString().slice(0, 10);

const pending = { filter_status: 'pending', limit: 100 };
tool('list_tasks', pending, { filter_feature: 'no-such-feature' }, 'not_found', (r, p) =>
  assert.deepEqual(ids(r.tasks), ids(query(p, "SELECT id FROM tasks WHERE status = 'pending' ORDER BY id"))),
);
tool('get_task', { id: 12 }, { id: 999 }, 'not_found', (r, p) => {
  assert.deepEqual(ids(r.dependencies), [9, 8]);
  assert.equal(r.comments.length, count(p, 'task_comments WHERE task_id = 12'));
});
const exported = { feature: 'settings', discipline: 'data', title: 'Export settings as JSON', depends_on: [20] };
const missingDependency = { feature: 'settings', discipline: 'data', title: 'x', depends_on: [999] };
tool('create_task', { ...exported, tags: ['export'] }, missingDependency, 'invalid_argument', (r, p) => {
  assert.equal(r.task.id, 21);
  assert.deepEqual(one(p, 'SELECT title, status, depends_on, tags, created FROM tasks WHERE id = 21'), {
    title: 'Export settings as JSON',
    status: 'pending',
    depends_on: '[20]',
    tags: '["export"]',
    created: today(),
  });
});
const criterion = { id: 20, priority: 'high', acceptance_criteria: ['Schema documented'] };
// 5 already depends on 2: a cycle.
tool('update_task', criterion, { id: 2, depends_on: [5] }, 'invalid_argument', (_r, p) => {
  const row = one(p, 'SELECT priority, acceptance_criteria, updated FROM tasks WHERE id = 20');
  assert.deepEqual(row, { priority: 'high', acceptance_criteria: '["Schema documented"]', updated: today() });
});
tool('set_task_status', { id: 11, status: 'done' }, { id: 11, status: 'finished' }, 'invalid_argument', (_r, p) =>
  assert.deepEqual(one(p, 'SELECT status, completed FROM tasks WHERE id = 11'), { status: 'done', completed: today() }),
);
// A draft for enrich_task and delete_task below.
const draft = { feature: 'settings', discipline: 'data', title: 'Draft: settings sync', status: 'draft' };
tool('create_task', draft, { feature: 'nope', discipline: 'data', title: 'x' }, 'not_found', (_r, p) =>
  assert.equal(one(p, 'SELECT status FROM tasks WHERE id = 22').status, 'draft'),
);
const pseudocode = '1. read settings\n2. push to sync store';
const enriched = { id: 22, pseudocode, acceptance_criteria: ['Round-trips'] };
// Task 1 is done, not a draft.
tool('enrich_task', enriched, { id: 1, pseudocode: 'x' }, 'conflict', (_r, p) => {
  const row = one(p, 'SELECT status, pseudocode, acceptance_criteria, enriched_at FROM tasks WHERE id = 22');
  assert.equal(row.status, 'pending');
  assert.equal(row.pseudocode, pseudocode);
  assert.equal(row.acceptance_criteria, '["Round-trips"]');
  assert.match(row.enriched_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});
// Tasks 4, 6, 13 and 18 depend on task 3.
tool('delete_task', { id: 22 }, { id: 3 }, 'conflict', (_r, p) => assert.equal(count(p, 'tasks WHERE id = 22'), 0));
const comment = { task_id: 10, body: 'Collection picker reuses the tag chip component.', priority: 'low' };
tool('add_task_comment', comment, { task_id: 999, body: 'x' }, 'not_found', (r, p) => {
  const row = one(p, 'SELECT * FROM task_comments WHERE id = ?', r.comment.id);
  assert.deepEqual([row.task_id, row.author, row.body, row.priority], [10, 'agent', comment.body, 'low']);
  assert.match(row.created, /Z$/);
});
// Comment 5 belongs to task 4.
const edited = { task_id: 4, comment_id: 5, body: 'Edge case fixed and covered.' };
tool('update_task_comment', edited, { task_id: 1, comment_id: 5, body: 'x' }, 'not_found', (_r, p) =>
  assert.equal(one(p, 'SELECT body FROM task_comments WHERE id = 5').body, 'Edge case fixed and covered.'),
);
tool('delete_task_comment', { task_id: 9, comment_id: 9 }, { task_id: 9, comment_id: 9 }, 'not_found', (_r, p) =>
  assert.equal(count(p, 'task_comments WHERE id = 9'), 0),
);
tool('list_features', {}, { verbose: true }, 'invalid_argument', (r, p) => {
  const names = (list: Row[]) => list.map((x) => x.name);
  assert.deepEqual(names(r.features), names(query(p, 'SELECT name FROM features ORDER BY name')));
});
tool('get_feature', { name: 'search' }, { name: 'nope' }, 'not_found', (r) => assert.equal(r.feature.acronym, 'SRCH'));
const sharing = { name: 'sharing', display_name: 'Sharing', description: 'Share collections by link' };
const takenAcronym = { name: 'sharing-two', display_name: 'Sharing Two', acronym: 'SRCH' };
tool('create_feature', sharing, takenAcronym, 'conflict', (r, p) => {
  const row = one(p, "SELECT * FROM features WHERE name = 'sharing'");
  assert.match(row.acronym, /^[A-Z0-9]{4}$/);
  assert.equal(row.acronym, r.feature.acronym);
  assert.deepEqual([row.learnings, row.context_files, row.created], ['[]', '[]', today()]);
});
const architecture = 'Settings live in one JSON document';
const settings = { name: 'settings', architecture, context_files: ['src/settings/store.ts'] };
tool('update_feature', settings, { name: 'settings', context_files: ['../outside.ts'] }, 'invalid_argument', (_r, p) =>
  assert.deepEqual(one(p, "SELECT architecture, context_files FROM features WHERE name = 'settings'"), {
    architecture,
    context_files: '["src/settings/store.ts"]',
  }),
);
tool('delete_feature', { name: 'sharing' }, { name: 'search' }, 'conflict', (_r, p) =>
  assert.equal(count(p, "features WHERE name = 'sharing'"), 0),
);
const lesson = 'Index URLs without the scheme so partial URL queries match';
const learning = { feature_name: 'search', text: lesson, task_id: 13 };
tool('append_feature_learning', learning, { feature_name: 'nope', text: 'x' }, 'not_found', (r, p) => {
  assert.equal(r.outcome, 'added');
  const stored = JSON.parse(one(p, "SELECT learnings FROM features WHERE name = 'search'").learnings);
  assert.deepEqual(
    [stored.length, stored[0].text, stored[0].source, stored[0].task_id, stored[0].hit_count],
    [1, lesson, 'agent', 13, 1],
  );
});
const contextFile = { feature_name: 'search', file_path: 'src/search/index.ts' };
const outside = { feature_name: 'search', file_path: '/etc/passwd' };
tool('add_feature_context_file', contextFile, outside, 'invalid_argument', (_r, p) => {
  const { context_files } = one(p, "SELECT context_files FROM features WHERE name = 'search'");
  assert.equal(context_files, '["src/search/index.ts"]');
});
tool('list_disciplines', {}, { filter: 'x' }, 'invalid_argument', (r) => assert.equal(r.disciplines.length, 8));
tool('get_discipline', { name: 'security' }, { name: 'nope' }, 'not_found', (r) =>
  assert.equal(r.discipline.acronym, 'SECR'),
);
const mobile = { name: 'mobile', display_name: 'Mobile', icon: 'Smartphone', color: '#123456' };
const frontend = { name: 'frontend', display_name: 'Frontend 2', icon: 'Code', color: '#000000' };
tool('create_discipline', { ...mobile, skills: ['react-native'] }, frontend, 'conflict', (_r, p) =>
  assert.deepEqual(one(p, "SELECT icon, color, skills, mcp_servers FROM disciplines WHERE name = 'mobile'"), {
    icon: 'Smartphone',
    color: '#123456',
    skills: '["react-native"]',
    mcp_servers: '[]',
  }),
);
const conventions = '- Contract tests for every adapter';
const integration = { name: 'integration', conventions };
tool('update_discipline', integration, { name: 'integration', color: 'red' }, 'invalid_argument', (_r, p) =>
  assert.equal(one(p, "SELECT conventions FROM disciplines WHERE name = 'integration'").conventions, conventions),
);
tool('delete_discipline', { name: 'mobile' }, { name: 'frontend' }, 'conflict', (_r, p) =>
  assert.equal(count(p, "disciplines WHERE name = 'mobile'"), 0),
);
tool('get_project_info', {}, { project: 'other' }, 'invalid_argument', (r) =>
  assert.deepEqual(r, {
    title: 'Bookmarks Manager',
    description: 'Add project description here',
    created: '2026-01-01',
    schema_version: '1.0',
  }),
);
tool('get_project_progress', {}, { feature: 'search' }, 'invalid_argument', (r, p) => {
  assert.equal(r.total, count(p, 'tasks'));
  assert.equal(r.done, count(p, "tasks WHERE status = 'done'"));
});
const learned = { text: 'Bookmark URLs are normalised before comparison.' };
tool('append_learning', learned, { text: '   ' }, 'invalid_argument', (_r, p) =>
  assert.match(
    readFileSync(p.learningsFile, 'utf8'),
    /^## \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z · ralph-mcp\nBookmark URLs are normalised before comparison\.\n\n$/,
  ),
);
tool('read_learnings', { last: 1 }, { last: 0 }, 'invalid_argument', (r) =>
  assert.deepEqual([r.entry_count, r.returned_entries, r.content.includes('normalised')], [1, 1, true]),
);
tool('append_progress', { text: 'Settings export started.' }, { text: 'x'.repeat(8001) }, 'invalid_argument', (_r, p) =>
  assert.match(readFileSync(p.progressFile, 'utf8'), /Settings export started\.\n\n$/),
);
tool('read_progress', {}, { last: 'all' }, 'invalid_argument', (r) => assert.equal(r.entry_count, 1));

describe("every tool on a copy of Ralph's 04-desktop-dev.db", { skip: FIXTURE_SKIP }, () => {
  let p: Project;
  let s: InProcSession;
  let schemaBefore: Row[];
  // Ralph's own schema objects: ours are all named ralph_mcp_*.
  const ralphSchema = () =>
    query(
      p,
      `SELECT type, name, sql FROM sqlite_master WHERE substr(name, 1, 10) <> 'ralph_mcp_'
       AND substr(tbl_name, 1, 10) <> 'ralph_mcp_' ORDER BY name`,
    );
  before(async () => {
    p = fixtureProject('04-desktop-dev.db');
    schemaBefore = ralphSchema();
    s = await openInProc(p);
  });
  after(() => s.close());

  test('the cases cover all 28 SPEC-070 tools', () => {
    assert.deepEqual([...new Set(CASES.map((c) => c.tool))].sort(), [...SPEC_070_TOOLS].sort());
  });

  for (const c of CASES) {
    test(`${c.tool}: happy path writes/reads what SQL sees; error path ${c.code} changes nothing`, async () => {
      const r = await s.ok(c.tool, c.ok);
      c.check(r, p);
      const state = () => dump(p) + readFileSync(p.learningsFile, 'utf8') + readFileSync(p.progressFile, 'utf8');
      const before = state();
      const err = await s.fail(c.tool, c.err);
      assert.equal(err.code, c.code, err.message);
      assert.equal(state(), before);
    });
  }

  test("the writes above added rows but never altered Ralph's tables", () => {
    assert.deepEqual(ralphSchema(), schemaBefore);
  });
});
