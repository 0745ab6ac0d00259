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
interface Case {
  tool: (typeof ALL_TOOLS)[number];
  ok: Record<string, unknown>;
  check: (r: Row, p: Project) => void;
  err: Record<string, unknown>;
  code: string;
}

const one = (p: Project, text: string, ...params: unknown[]): Row => query<Row>(p, text, ...params)[0]!;
const today = () => new Date().toISOString().slice(0, 10);

const CASES: Case[] = [
  {
    tool: 'list_tasks',
    ok: { filter_status: 'pending', limit: 100 },
    check: (r, p) =>
      assert.deepEqual(
        r.tasks.map((t: Row) => t.id),
        query<Row>(p, "SELECT id FROM tasks WHERE status = 'pending' ORDER BY id").map((x) => x.id),
      ),
    err: { filter_feature: 'no-such-feature' },
    code: 'not_found',
  },
  {
    tool: 'get_task',
    ok: { id: 12 },
    check: (r, p) => {
      assert.deepEqual(
        r.dependencies.map((d: Row) => d.id),
        [9, 8],
      );
      assert.equal(r.comments.length, one(p, 'SELECT count(*) AS n FROM task_comments WHERE task_id = 12').n);
    },
    err: { id: 999 },
    code: 'not_found',
  },
  {
    tool: 'create_task',
    ok: {
      feature: 'settings',
      discipline: 'data',
      title: 'Export settings as JSON',
      depends_on: [20],
      tags: ['export'],
    },
    check: (r, p) => {
      const row = one(p, 'SELECT * FROM tasks WHERE id = 21');
      assert.equal(r.task.id, 21);
      assert.deepEqual(
        [row.title, row.status, row.depends_on, row.tags, row.created],
        ['Export settings as JSON', 'pending', '[20]', '["export"]', today()],
      );
    },
    err: { feature: 'settings', discipline: 'data', title: 'x', depends_on: [999] },
    code: 'invalid_argument',
  },
  {
    tool: 'update_task',
    ok: { id: 20, priority: 'high', acceptance_criteria: ['Schema documented'] },
    check: (_r, p) => {
      const row = one(p, 'SELECT priority, acceptance_criteria, updated FROM tasks WHERE id = 20');
      assert.deepEqual(row, { priority: 'high', acceptance_criteria: '["Schema documented"]', updated: today() });
    },
    err: { id: 2, depends_on: [5] }, // 5 already depends on 2: a cycle
    code: 'invalid_argument',
  },
  {
    tool: 'set_task_status',
    ok: { id: 11, status: 'done' },
    check: (_r, p) =>
      assert.deepEqual(one(p, 'SELECT status, completed FROM tasks WHERE id = 11'), {
        status: 'done',
        completed: today(),
      }),
    err: { id: 11, status: 'finished' },
    code: 'invalid_argument',
  },
  {
    tool: 'create_task', // a draft for enrich_task and delete_task below
    ok: { feature: 'settings', discipline: 'data', title: 'Draft: settings sync', status: 'draft' },
    check: (_r, p) => assert.equal(one(p, 'SELECT status FROM tasks WHERE id = 22').status, 'draft'),
    err: { feature: 'nope', discipline: 'data', title: 'x' },
    code: 'not_found',
  },
  {
    tool: 'enrich_task',
    ok: { id: 22, pseudocode: '1. read settings\n2. push to sync store', acceptance_criteria: ['Round-trips'] },
    check: (_r, p) => {
      const row = one(p, 'SELECT status, pseudocode, acceptance_criteria, enriched_at FROM tasks WHERE id = 22');
      assert.equal(row.status, 'pending');
      assert.equal(row.pseudocode, '1. read settings\n2. push to sync store');
      assert.equal(row.acceptance_criteria, '["Round-trips"]');
      assert.match(row.enriched_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    },
    err: { id: 1, pseudocode: 'x' }, // done, not draft
    code: 'conflict',
  },
  {
    tool: 'delete_task',
    ok: { id: 22 },
    check: (_r, p) => assert.equal(one(p, 'SELECT count(*) AS n FROM tasks WHERE id = 22').n, 0),
    err: { id: 3 }, // tasks 4, 6, 13 and 18 depend on it
    code: 'conflict',
  },
  {
    tool: 'add_task_comment',
    ok: { task_id: 10, body: 'Collection picker reuses the tag chip component.', priority: 'low' },
    check: (r, p) => {
      const row = one(p, 'SELECT * FROM task_comments WHERE id = ?', r.comment.id);
      assert.deepEqual(
        [row.task_id, row.author, row.body, row.priority],
        [10, 'agent', 'Collection picker reuses the tag chip component.', 'low'],
      );
      assert.match(row.created, /Z$/);
    },
    err: { task_id: 999, body: 'x' },
    code: 'not_found',
  },
  {
    tool: 'update_task_comment',
    ok: { task_id: 4, comment_id: 5, body: 'Edge case fixed and covered.' },
    check: (_r, p) =>
      assert.equal(one(p, 'SELECT body FROM task_comments WHERE id = 5').body, 'Edge case fixed and covered.'),
    err: { task_id: 1, comment_id: 5, body: 'x' }, // comment 5 belongs to task 4
    code: 'not_found',
  },
  {
    tool: 'delete_task_comment',
    ok: { task_id: 9, comment_id: 9 },
    check: (_r, p) => assert.equal(one(p, 'SELECT count(*) AS n FROM task_comments WHERE id = 9').n, 0),
    err: { task_id: 9, comment_id: 9 },
    code: 'not_found',
  },
  {
    tool: 'list_features',
    ok: {},
    check: (r, p) =>
      assert.deepEqual(
        r.features.map((f: Row) => f.name),
        query<Row>(p, 'SELECT name FROM features ORDER BY name').map((x) => x.name),
      ),
    err: { verbose: true },
    code: 'invalid_argument',
  },
  {
    tool: 'get_feature',
    ok: { name: 'search' },
    check: (r) => assert.equal(r.feature.acronym, 'SRCH'),
    err: { name: 'nope' },
    code: 'not_found',
  },
  {
    tool: 'create_feature',
    ok: { name: 'sharing', display_name: 'Sharing', description: 'Share collections by link' },
    check: (r, p) => {
      const row = one(p, "SELECT * FROM features WHERE name = 'sharing'");
      assert.match(row.acronym, /^[A-Z0-9]{4}$/);
      assert.equal(row.acronym, r.feature.acronym);
      assert.deepEqual([row.learnings, row.context_files, row.created], ['[]', '[]', today()]);
    },
    err: { name: 'sharing-two', display_name: 'Sharing Two', acronym: 'SRCH' },
    code: 'conflict',
  },
  {
    tool: 'update_feature',
    ok: {
      name: 'settings',
      architecture: 'Settings live in one JSON document',
      context_files: ['src/settings/store.ts'],
    },
    check: (_r, p) =>
      assert.deepEqual(one(p, "SELECT architecture, context_files FROM features WHERE name = 'settings'"), {
        architecture: 'Settings live in one JSON document',
        context_files: '["src/settings/store.ts"]',
      }),
    err: { name: 'settings', context_files: ['../outside.ts'] },
    code: 'invalid_argument',
  },
  {
    tool: 'delete_feature',
    ok: { name: 'sharing' },
    check: (_r, p) => assert.equal(one(p, "SELECT count(*) AS n FROM features WHERE name = 'sharing'").n, 0),
    err: { name: 'search' },
    code: 'conflict',
  },
  {
    tool: 'append_feature_learning',
    ok: { feature_name: 'search', text: 'Index URLs without the scheme so partial URL queries match', task_id: 13 },
    check: (r, p) => {
      assert.equal(r.outcome, 'added');
      const stored = JSON.parse(one(p, "SELECT learnings FROM features WHERE name = 'search'").learnings);
      assert.deepEqual(
        [stored.length, stored[0].text, stored[0].source, stored[0].task_id, stored[0].hit_count],
        [1, 'Index URLs without the scheme so partial URL queries match', 'agent', 13, 1],
      );
    },
    err: { feature_name: 'nope', text: 'x' },
    code: 'not_found',
  },
  {
    tool: 'add_feature_context_file',
    ok: { feature_name: 'search', file_path: 'src/search/index.ts' },
    check: (_r, p) =>
      assert.equal(
        one(p, "SELECT context_files FROM features WHERE name = 'search'").context_files,
        '["src/search/index.ts"]',
      ),
    err: { feature_name: 'search', file_path: '/etc/passwd' },
    code: 'invalid_argument',
  },
  {
    tool: 'list_disciplines',
    ok: {},
    check: (r) => assert.equal(r.disciplines.length, 8),
    err: { filter: 'x' },
    code: 'invalid_argument',
  },
  {
    tool: 'get_discipline',
    ok: { name: 'security' },
    check: (r) => assert.equal(r.discipline.acronym, 'SECR'),
    err: { name: 'nope' },
    code: 'not_found',
  },
  {
    tool: 'create_discipline',
    ok: { name: 'mobile', display_name: 'Mobile', icon: 'Smartphone', color: '#123456', skills: ['react-native'] },
    check: (_r, p) =>
      assert.deepEqual(one(p, "SELECT icon, color, skills, mcp_servers FROM disciplines WHERE name = 'mobile'"), {
        icon: 'Smartphone',
        color: '#123456',
        skills: '["react-native"]',
        mcp_servers: '[]',
      }),
    err: { name: 'frontend', display_name: 'Frontend 2', icon: 'Code', color: '#000000' },
    code: 'conflict',
  },
  {
    tool: 'update_discipline',
    ok: { name: 'integration', conventions: '- Contract tests for every adapter' },
    check: (_r, p) =>
      assert.equal(
        one(p, "SELECT conventions FROM disciplines WHERE name = 'integration'").conventions,
        '- Contract tests for every adapter',
      ),
    err: { name: 'integration', color: 'red' },
    code: 'invalid_argument',
  },
  {
    tool: 'delete_discipline',
    ok: { name: 'mobile' },
    check: (_r, p) => assert.equal(one(p, "SELECT count(*) AS n FROM disciplines WHERE name = 'mobile'").n, 0),
    err: { name: 'frontend' },
    code: 'conflict',
  },
  {
    tool: 'get_project_info',
    ok: {},
    check: (r) =>
      assert.deepEqual(r, {
        title: 'Bookmarks Manager',
        description: 'Add project description here',
        created: '2026-01-01',
        schema_version: '1.0',
      }),
    err: { project: 'other' },
    code: 'invalid_argument',
  },
  {
    tool: 'get_project_progress',
    ok: {},
    check: (r, p) => {
      assert.equal(r.total, one(p, 'SELECT count(*) AS n FROM tasks').n);
      assert.equal(r.done, one(p, "SELECT count(*) AS n FROM tasks WHERE status = 'done'").n);
    },
    err: { feature: 'search' },
    code: 'invalid_argument',
  },
  {
    tool: 'append_learning',
    ok: { text: 'Bookmark URLs are normalised before comparison.' },
    check: (_r, p) =>
      assert.match(
        readFileSync(p.learningsFile, 'utf8'),
        /^## \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z · ralph-mcp\nBookmark URLs are normalised before comparison\.\n\n$/,
      ),
    err: { text: '   ' },
    code: 'invalid_argument',
  },
  {
    tool: 'read_learnings',
    ok: { last: 1 },
    check: (r) => assert.deepEqual([r.entry_count, r.returned_entries, r.content.includes('normalised')], [1, 1, true]),
    err: { last: 0 },
    code: 'invalid_argument',
  },
  {
    tool: 'append_progress',
    ok: { text: 'Settings export started.' },
    check: (_r, p) => assert.match(readFileSync(p.progressFile, 'utf8'), /Settings export started\.\n\n$/),
    err: { text: 'x'.repeat(8001) },
    code: 'invalid_argument',
  },
  {
    tool: 'read_progress',
    ok: {},
    check: (r) => assert.equal(r.entry_count, 1),
    err: { last: 'all' },
    code: 'invalid_argument',
  },
];

describe("every tool on a copy of Ralph's 04-desktop-dev.db", { skip: FIXTURE_SKIP }, () => {
  let p: Project;
  let s: InProcSession;
  before(async () => {
    p = fixtureProject('04-desktop-dev.db');
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
});
