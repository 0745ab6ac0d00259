import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../src/server/log.js';
import { REGISTRY } from '../../src/registry/registry.js';
import { applyNow, type SessionScope, type ToolContext } from '../../src/toolkit/context.js';
import { openStore } from '../../src/store/open/openStore.js';
import { GENERATIONS } from '../../src/store/records.js';
import { REPO } from '../helpers/env.js';
import { sampleProject } from '../helpers/project.js';

/**
 * EXPLAIN QUERY PLAN for the SQL the hot tools really run, with their real parameters: nothing may read
 * every task or comment where an index can avoid it. Without ANALYZE, SQLite plans as for large tables.
 * Features and disciplines are small by nature.
 */
const HOT_CALLS: [string, Record<string, unknown>][] = [
  ['get_task', { id: 3 }],
  ['list_tasks', {}],
  ['list_tasks', { cursor: '2', limit: 2 }],
  ['list_tasks', { filter_status: 'pending' }],
  ['list_tasks', { filter_status: 'pending', filter_feature: 'recipes' }],
  // The sort by updated and updated_since walk ralph_mcp_*_changed; a priority filter alone reads the ranks
  // (legacy: ralph_mcp_tasks_rank; normalized: counted over the facets); ready as a claim; the tag filter
  // our index of tags (legacy: the ralph_mcp_task_tags mirror; normalized: an index of ours on task_tags);
  // the holder filter our claims; a status filter sorted by priority the facets.
  ['list_tasks', { sort: 'updated' }],
  ['list_tasks', { updated_since: '2026-01-01T10:00:00Z', sort: 'updated' }],
  ['list_tasks', { filter_priority: ['high', 'critical'] }],
  ['list_tasks', { ready: true }],
  ['list_tasks', { filter_tag: 'ui' }],
  ['list_tasks', { filter_status: ['pending', 'blocked'], filter_tag: 'ui', sort: 'updated' }],
  ['list_tasks', { held_by: 'any' }],
  ['list_tasks', { filter_status: ['pending', 'blocked'], sort: 'priority' }],
  ['next_tasks', {}],
  ['search_tasks', { query: 'recipe' }],
  ['get_project_progress', {}],
  ['add_task_comment', { task_id: 3, body: 'plan check' }],
  ['set_task_status', { id: 4, status: 'in_progress' }],
  ['claim_next_task', {}],
  ['claim_task', { id: 5 }],
];

/** Plan lines that read a whole table of tasks or comments (either generation's, or its alias t, d, sg, …). */
const FULL_READ =
  /^SCAN (tasks|task_comments|runtime_tasks|task_details|task_signals|task_dependencies|task_tags|task_acceptance_criteria|task_context_files|task_output_artifacts|t|c|d|sg|dd)\b(?!.*(COVERING INDEX|VIRTUAL TABLE))/;
/** Full reads accepted on purpose: add one only with the reason it cannot use an index. */
const ALLOWED: { tool: string; sql: RegExp; why: string }[] = [
  {
    tool: 'search_tasks',
    sql: /^SELECT id, title FROM tasks$/,
    why: 'the title keys are built once, with the search index (whose own build reads every task too), on the first search',
  },
];

for (const generation of GENERATIONS)
  test(`hot queries use indexes: EXPLAIN QUERY PLAN of what the handlers run [${generation}]`, () => {
    const project = sampleProject(generation);
    const { store } = openStore(project.dbPath);
    const db = store.db;
    try {
      store.ensureOwnTables();
      const seen: { tool: string; sql: string; params: unknown[] }[] = [];
      let current = '';
      for (const m of ['get', 'all', 'run'] as const) {
        const orig = db[m].bind(db) as (sql: string, ...p: unknown[]) => unknown;
        (db as unknown as Record<string, unknown>)[m] = (sql: string, ...params: unknown[]) => {
          seen.push({ tool: current, sql, params });
          return orig(sql, ...params);
        };
      }
      const session: SessionScope = {
        sessionId: 'plans',
        recipe: 'worker',
        discipline: null,
        taskId: null,
        claimed: false,
        leased: false,
        leasesTask: false,
        disciplineScoped: false,
        ownTaskOnly: false,
        feature: null,
        launch: { feature: null, discipline: null },
        removed: new Set(),
        leaseMs: 900_000,
      };
      const ctx: ToolContext = {
        store,
        project,
        session,
        log: createLogger('silent'),
        onCommit: applyNow(session),
        disciplineOverrides: () => [],
      };
      for (const [name, args] of HOT_CALLS) {
        const def = REGISTRY.find((t) => t.name === name)!;
        current = name;
        const call = () => db.write(() => def.handler(def.input.parse(args) as never, ctx));
        assert.doesNotThrow(call, `${name} ${JSON.stringify(args)}`);
      }
      const report: string[] = [];
      const offenders: string[] = [];
      for (const { tool, sql, params } of seen) {
        if (!/^\s*(SELECT|UPDATE|DELETE|WITH)/i.test(sql)) continue;
        const plan = (
          db.raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as never[])) as { detail: string }[]
        ).map((r) => r.detail);
        const oneLine = sql.replace(/\s+/g, ' ').trim();
        report.push(`${tool}: ${oneLine.slice(0, 110)}\n    ${plan.join('\n    ')}`);
        const full = plan.filter((d) => FULL_READ.test(d));
        if (full.length > 0 && !ALLOWED.some((a) => a.tool === tool && a.sql.test(oneLine)))
          offenders.push(`${tool}: ${oneLine}\n  ${full.join('; ')}`);
      }
      process.stderr.write(`\nEXPLAIN QUERY PLAN, hot queries (${generation}):\n${report.join('\n')}\n`);
      assert.ok(seen.length > 10, 'the handlers ran their queries');
      assert.deepEqual(offenders, [], 'queries that read every task/comment although an index could avoid it');
    } finally {
      db.close();
    }
  });

test('LIMIT and OFFSET take CAST(? AS INTEGER), never a bare bound value (which SQLite re-prepares at every run)', () => {
  // SQL keywords in capitals, as our SQL is written; `${...}` splices a constant, not a bound value.
  const bare = /\b(LIMIT|OFFSET)\s+(\?|[@:]\w|\$(?!\{))/;
  const comment = /^\s*(\*|\/\/|\/\*)/;
  const offenders = readdirSync(join(REPO, 'src'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) =>
      readFileSync(join(REPO, 'src', f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (bare.test(line) && !comment.test(line) ? [`src/${f}:${i + 1}: ${line.trim()}`] : [])),
    );
  assert.deepEqual(offenders, []);
});
