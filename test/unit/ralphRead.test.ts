import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  FIXTURE_SKIP,
  FIXTURES,
  FIXTURES_DIR,
  HEAD_FIXTURE_SKIP,
  HEAD_FIXTURES,
  HEAD_FIXTURES_DIR,
} from '../helpers/env.js';
import {
  counts,
  generationOf,
  LEGACY_INVARIANT_NAMES,
  legacyInvariants,
  NORMALIZED_INVARIANT_NAMES,
  normalizedInvariants,
  ralphComments,
  ralphDiscipline,
  ralphFeature,
  ralphTask,
  ralphTaskList,
  type RalphComment,
  type SignalComment,
} from '../helpers/ralphRead.js';

// Every test works on its own copy: the helpers open read-only, but breaking rules needs writes, and even a
// read-only open of a WAL database leaves -wal/-shm files next to it.
const TMP = mkdtempSync(join(tmpdir(), 'ralph-read-'));
after(() => rmSync(TMP, { recursive: true, force: true }));
let copies = 0;

function copyOf(dir: string, name: string): string {
  const into = join(TMP, String(copies++));
  mkdirSync(into);
  const dest = join(into, name);
  copyFileSync(join(dir, name), dest);
  // A committed-but-uncheckpointed WAL would hold part of the data; copy it along if one is lying there.
  if (existsSync(join(dir, `${name}-wal`))) copyFileSync(join(dir, `${name}-wal`), `${dest}-wal`);
  return dest;
}

/** A copy of one of Ralph head's own fixtures (normalized schema; never copied into this repo). */
const head = (name: string = '04-desktop-dev.db') => copyOf(HEAD_FIXTURES_DIR, name);
const legacy = (name: string = '04-desktop-dev.db') => copyOf(FIXTURES_DIR, name);

/** Writes to a copy, the way a faulty writer would (pragmas included, e.g. to get past CHECKs or FKs). */
function mutate(path: string, sql: string): string {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
  return path;
}

const OFF_CHECKS = 'PRAGMA ignore_check_constraints = ON;';
const OFF_FKS = 'PRAGMA foreign_keys = OFF;';

/** What counts() answers, in its order: tasks, dependencies, criteria, comments, learnings, features, … */
const COUNTED =
  'tasks dependencies criteria comments learnings features disciplines tags context_files output_artifacts';
const tally = (...n: number[]) => Object.fromEntries(COUNTED.split(' ').map((k, i) => [k, n[i]]));

function assertNamesRule(violations: string[], rule: string): void {
  assert.ok(
    violations.some((v) => v.startsWith(`[${rule}] `)),
    `expected a [${rule}] violation, got:\n${violations.join('\n') || '(none)'}`,
  );
}

describe('normalized (head) fixtures', { skip: HEAD_FIXTURE_SKIP }, () => {
  for (const name of HEAD_FIXTURES) {
    test(`${name}: every invariant holds`, () => {
      const p = head(name);
      assert.equal(generationOf(p), 'normalized');
      assert.deepEqual(normalizedInvariants(p), []);
      ralphTaskList(p); // must not throw
    });
  }

  test('04-desktop-dev counts are what the fixture holds', () => {
    assert.deepEqual(counts(head()), tally(21, 13, 45, 30, 0, 5, 8, 36, 0, 0));
    assert.deepEqual(counts(head('03-desktop-tasks.db')), tally(3, 1, 4, 1, 0, 2, 8, 4, 3, 2));
  });

  test('ralphTaskList reads like get_task_list_items', () => {
    const list = ralphTaskList(head());
    assert.deepEqual(
      list.map((t) => t.id),
      Array.from({ length: 21 }, (_, i) => i + 1),
    );
    assert.deepEqual(list[3], {
      id: 4,
      subsystem: 'bookmark-crud',
      discipline: 'quality',
      title: 'Unit tests for bookmark CRUD',
      description: 'Write comprehensive unit tests for create, read, update, and delete operations',
      status: 'in_progress',
      priority: 'medium',
      provenance: 'agent',
      tags: ['testing'],
      depends_on: [3],
      acceptance_criteria_count: 2,
      signal_count: 2,
      subsystem_display_name: 'Bookmark CRUD',
      subsystem_acronym: 'BKMK',
      discipline_display_name: 'Quality',
      discipline_acronym: 'QLTY',
      discipline_icon: 'Award',
      discipline_color: '#9e7704',
    });
    assert.equal(list[20]?.signal_count, 15);
    assert.equal(
      list.reduce((n, t) => n + t.signal_count, 0),
      30,
    );
  });

  test('ralphTaskList fails as a whole on a status, priority or provenance Ralph cannot parse', () => {
    for (const [sql, error] of [
      ["UPDATE runtime_tasks SET status = 'failed' WHERE id = 6", /Invalid task status: failed \(task 6\)/],
      ["UPDATE runtime_tasks SET status = 'needs_input' WHERE id = 9", /needs_input \(task 9\)/],
      [
        `${OFF_CHECKS} UPDATE task_details SET priority = 'urgent' WHERE id = 5`,
        /Invalid task priority: urgent \(task 1\)/,
      ],
      [
        `${OFF_CHECKS} UPDATE runtime_tasks SET provenance = 'Agent' WHERE id = 2`,
        /Invalid task provenance: Agent \(task 2\)/,
      ],
    ] as const)
      assert.throws(() => ralphTaskList(mutate(head(), sql)), error, sql);
  });

  test('ralphTask shows what get_task_by_id shows (an unknown status as pending)', () => {
    const p = head();
    assert.deepEqual(ralphTask(p, 1), {
      id: 1,
      title: 'Bookmark card layout',
      description: 'Design the bookmark card component with favicon, title, URL, and action buttons',
      status: 'done',
      status_raw: 'done',
      priority: 'low',
      feature: 'bookmark-crud',
      discipline: 'frontend',
      tags: ['ui', 'design'],
      depends_on: [],
      acceptance_criteria: ['Card displays favicon, title, and truncated URL', 'Action buttons visible on hover'],
      context_files: [],
      output_artifacts: [],
      hints: null,
      estimated_turns: null,
      provenance: 'agent',
      pseudocode: null,
      enriched_at: null,
      created: '2026-01-01',
      updated: '2025-01-14',
      completed: '2025-01-14',
      template_id: null,
      agent: 'claude',
      model: 'sonnet',
      effort: null,
      thinking: true,
    });
    assert.deepEqual(ralphTask(p, 4)?.depends_on, [3]);
    assert.equal(ralphTask(p, 22), undefined);
    assert.equal(ralphTask(head('05-desktop-templates.db'), 1)?.template_id, 1);

    const broken = ralphTask(mutate(head(), "UPDATE runtime_tasks SET status = 'needs_input' WHERE id = 5"), 5);
    assert.deepEqual([broken?.status, broken?.status_raw], ['pending', 'needs_input']);
    // A task whose subsystem is gone is "not found" to Ralph (inner JOIN).
    assert.equal(
      ralphTask(mutate(head(), `${OFF_FKS} UPDATE runtime_tasks SET subsystem_id = 99 WHERE id = 20`), 20),
      undefined,
    );
  });

  test('ralphTask orders criteria by criterion_order, not by id', () => {
    const p = mutate(
      head(),
      'UPDATE task_acceptance_criteria SET criterion_order = 1 - criterion_order WHERE task_id = 1',
    );
    assert.deepEqual(ralphTask(p, 1)?.acceptance_criteria, [
      'Action buttons visible on hover',
      'Card displays favicon, title, and truncated URL',
    ]);
  });

  const LEGACY_4 = ['human', 'learned', 'discovery', 'task', 'legacy-task-4'];

  test('ralphComments reads get_signals_for_task, oldest first', () => {
    const p = head();
    const four = ralphComments(p, 4) as SignalComment[];
    // Both: human, learned, discovery, task, legacy-task-4.
    assert.deepEqual(
      four.map((c) => [c.id, c.body, c.author, c.verb, c.kind, c.scope, c.session_id]),
      [
        [4, 'Found edge case: empty URL string passes validation. Adding test.', ...LEGACY_4],
        [5, 'Also test unicode URLs please.', ...LEGACY_4],
      ],
    );
    const t21 = ralphComments(p, 21) as SignalComment[];
    assert.deepEqual(
      t21.map((c) => c.id),
      Array.from({ length: 15 }, (_, i) => i + 16),
    );
    const verbs = 'done partial stuck ask ask flag flag flag learned learned learned suggest suggest blocked blocked';
    assert.deepEqual(
      t21.map((c) => c.verb),
      verbs.split(' '),
    );
    assert.ok(t21.every((c) => c.author === 'agent' && c.created === '2026-01-01T00:00:00Z'));
    const partial = t21[1];
    assert.equal(partial?.body, partial?.summary); // COALESCE(text, summary, ...) picks the summary
    assert.equal(partial?.remaining, 'JSON export format, bulk export UI, remaining 6 edge-case tests.');
    const ask = t21[3];
    assert.equal(ask?.blocking, true);
    assert.deepEqual(ask?.options, ['Add timestamp', 'Static filename', 'Let user choose via dialog']);
    assert.equal(ask?.preferred, 'Add timestamp');
    const blocked = t21[14];
    assert.equal(blocked?.body, ''); // "on" is not in Ralph's COALESCE: a blocked signal has an empty body
    assert.equal(blocked?.on, 'Bun v1.2+ required for File System Access API — CI still running Bun v1.0.15.');
    assert.equal(blocked?.kind, 'external');
    assert.deepEqual(ralphComments(p, 5), []);

    // A signal whose session is gone still reads, authored by 'system' (LEFT JOIN + COALESCE).
    const orphan = mutate(head(), `${OFF_FKS} DELETE FROM agent_sessions WHERE id = 'legacy-task-1'`);
    assert.equal(ralphComments(orphan, 1)[0]?.author, 'system');
  });

  test('ralphFeature: NOCASE name, learnings from subsystem_comments, child tables', () => {
    const p = head();
    const f = ralphFeature(p, 'BOOKMARK-Crud');
    assert.deepEqual(
      [f?.name, f?.display_name, f?.acronym, f?.status, f?.created],
      ['bookmark-crud', 'Bookmark CRUD', 'BKMK', 'active', '2026-01-01'],
    );
    assert.deepEqual(f?.learnings, []); // 6 comments on it, none in category 'learning'
    assert.equal(ralphFeature(p, 'nope'), undefined);

    const q = mutate(
      head(),
      `INSERT INTO subsystem_comments (subsystem_id, category, discipline_id, agent_task_id, body, summary, reason, source_iteration, created)
         VALUES (1, 'learning', 1, 4, 'Favicons need a fallback', 'fallback icon', '404s are common', 2, '2026-01-02T00:00:00Z');
       INSERT INTO subsystem_knowledge_paths (subsystem_id, path) VALUES (3, 'docs/search.md');
       INSERT INTO subsystem_context_files (subsystem_id, file_path) VALUES (3, 'src/search/index.ts');
       INSERT INTO subsystem_dependencies (subsystem_id, depends_on_subsystem_id) VALUES (3, 1);
       UPDATE subsystems SET architecture = 'inverted index', boundaries = 'read-only' WHERE id = 3;`,
    );
    const [learned, ...more] = ralphFeature(q, 'bookmark-crud')?.learnings ?? [];
    assert.deepEqual(more, []);
    const fallback = 'Favicons need a fallback';
    assert.deepEqual(
      [learned?.text, learned?.body, learned?.summary, learned?.reason, learned?.discipline],
      [fallback, fallback, 'fallback icon', '404s are common', 'frontend'],
    );
    assert.deepEqual([learned?.task_id, learned?.iteration, learned?.created], [4, 2, '2026-01-02T00:00:00Z']);
    const s = ralphFeature(q, 'search');
    assert.deepEqual([s?.architecture, s?.boundaries], ['inverted index', 'read-only']);
    assert.deepEqual(s?.knowledge_paths, ['docs/search.md']);
    assert.deepEqual(s?.context_files, ['src/search/index.ts']);
    assert.deepEqual(s?.dependencies, ['bookmark-crud']);
    assert.equal(counts(q).learnings, 1);
    assert.deepEqual(normalizedInvariants(q), []);
  });

  test('ralphDiscipline: skills by id, MCP servers with args by arg_order and env', () => {
    const p = head();
    const d = ralphDiscipline(p, 'FRONTEND');
    assert.equal(d?.name, 'frontend');
    assert.deepEqual([d?.display_name, d?.acronym, d?.icon, d?.color], ['Frontend', 'FRNT', 'Code', '#068d87']);
    assert.deepEqual(d?.skills, ['react-19', 'typescript', 'tailwind-v4', 'zustand', 'tanstack-query', 'tauri-ipc']);
    assert.deepEqual([d?.agent, d?.model, d?.effort, d?.thinking], ['codex', 'gpt-5.3-codex', null, true]);
    assert.match(d?.system_prompt ?? '', /^You are the frontend specialist/);
    assert.deepEqual(d?.mcp_servers, []);
    assert.equal(ralphDiscipline(p, 'nope'), undefined);

    const q = mutate(
      head(),
      `INSERT INTO discipline_mcp_servers (id, discipline_id, name, command) VALUES (1, 1, 'fs', 'npx');
       INSERT INTO discipline_mcp_server_args (server_id, arg, arg_order) VALUES (1, 'second', 1), (1, 'first', 0);
       INSERT INTO discipline_mcp_server_env (server_id, key, value) VALUES (1, 'ROOT', '/x');`,
    );
    assert.deepEqual(ralphDiscipline(q, 'frontend')?.mcp_servers, [
      { name: 'fs', command: 'npx', args: ['first', 'second'], env: { ROOT: '/x' } },
    ]);
  });

  // One deliberate break per rule; each must be reported under that rule's name.
  const BREAKS: Record<string, string> = {
    integrity_check: `${OFF_CHECKS} UPDATE task_signals SET summary = 'x' WHERE id = 1`, // a learned signal with a summary: verb-shape CHECK
    foreign_key_check: `${OFF_FKS} UPDATE task_tags SET task_id = 999 WHERE id = 1`,
    task_status_known: "UPDATE runtime_tasks SET status = 'needs_input' WHERE id = 5",
    done_has_completed: `${OFF_CHECKS} UPDATE runtime_tasks SET completed = NULL WHERE id = 1`,
    task_joins_resolve: `${OFF_FKS} UPDATE runtime_tasks SET subsystem_id = 99 WHERE id = 20`,
    criterion_order_contiguous: 'UPDATE task_acceptance_criteria SET criterion_order = 5 WHERE id = 2',
    signal_session_exists: `${OFF_FKS} DELETE FROM agent_sessions WHERE id = 'legacy-task-1'`,
    priority_known: `${OFF_CHECKS} UPDATE task_details SET priority = 'urgent' WHERE id = 5`,
    provenance_known: `${OFF_CHECKS} UPDATE runtime_tasks SET provenance = 'robot' WHERE id = 1`,
    agent_known: `${OFF_CHECKS} UPDATE disciplines SET agent = 'gemini' WHERE name = 'frontend'`,
    effort_known: `${OFF_CHECKS} UPDATE task_details SET effort = 'max' WHERE id = 5`,
    thinking_known: `${OFF_CHECKS} UPDATE task_details SET thinking = 2 WHERE id = 5`,
    acronym_format: "UPDATE subsystems SET acronym = 'Bkm1' WHERE id = 1",
    task_dates: "UPDATE runtime_tasks SET created = '2026-01-01T00:00:00Z' WHERE id = 3",
    rfc3339_timestamps: "UPDATE task_signals SET created = datetime('now') WHERE id = 1", // the column DEFAULT's format
    updated_format: "UPDATE task_details SET updated = 'yesterday' WHERE id = 5",
    required_text_nonblank: "UPDATE task_details SET title = '   ' WHERE id = 5",
    dependencies_acyclic: 'INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (2, 3)', // 3 already depends on 2
    task_list_loads: "UPDATE runtime_tasks SET status = 'failed' WHERE id = 6",
  };

  test('every normalized invariant has a break case', () => {
    assert.deepEqual(Object.keys(BREAKS).sort(), [...NORMALIZED_INVARIANT_NAMES].sort());
  });

  for (const [rule, sql] of Object.entries(BREAKS)) {
    test(`breaking ${rule} is caught`, () => {
      assertNamesRule(normalizedInvariants(mutate(head(), sql)), rule);
    });
  }

  test('a done task without completed is also an integrity_check failure (read-only connections skip CHECKs)', () => {
    const v = normalizedInvariants(mutate(head(), BREAKS.done_has_completed ?? ''));
    assertNamesRule(v, 'integrity_check');
    assert.ok(
      v.some((m) => m.includes('CHECK constraint failed in runtime_tasks')),
      v.join('\n'),
    );
  });

  test('needs_input / failed break the list and are flagged twice', () => {
    const v = normalizedInvariants(mutate(head(), "UPDATE runtime_tasks SET status = 'failed' WHERE id = 6"));
    assertNamesRule(v, 'task_status_known');
    assertNamesRule(v, 'task_list_loads');
    assert.ok(
      v.some((m) => m.includes('failed') && m.includes('task 6')),
      v.join('\n'),
    );
  });
});

describe('legacy fixtures', { skip: FIXTURE_SKIP }, () => {
  for (const name of FIXTURES) {
    test(`${name}: every legacy invariant holds`, () => {
      const p = legacy(name);
      assert.equal(generationOf(p), 'legacy');
      assert.deepEqual(legacyInvariants(p), []);
    });
  }

  test('04-desktop-dev counts (from the JSON columns)', () => {
    assert.deepEqual(counts(legacy()), tally(20, 13, 43, 15, 0, 5, 8, 33, 0, 0));
  });

  test('ralphTaskList reads the legacy tasks and never fails (936f316 shows unknown statuses as pending)', () => {
    const p = legacy();
    const list = ralphTaskList(p);
    assert.equal(list.length, 20);
    assert.deepEqual(
      [
        list[3]?.tags,
        list[3]?.depends_on,
        list[3]?.acceptance_criteria_count,
        list[3]?.signal_count,
        list[3]?.discipline_acronym,
      ],
      [['testing'], [3], 2, 2, 'QLTY'],
    );
    const broken = mutate(legacy(), "UPDATE tasks SET status = 'failed' WHERE id = 6");
    assert.equal(ralphTaskList(broken)[5]?.status, 'pending');
  });

  test('ralphTask parses the JSON columns', () => {
    const p = legacy();
    const t = ralphTask(p, 1);
    assert.deepEqual([t?.title, t?.feature, t?.tags], ['Bookmark card layout', 'bookmark-crud', ['ui', 'design']]);
    assert.deepEqual(t?.acceptance_criteria, [
      'Card displays favicon, title, and truncated URL',
      'Action buttons visible on hover',
    ]);
    assert.deepEqual(
      [t?.status, t?.priority, t?.provenance, t?.created, t?.updated, t?.completed],
      ['done', 'low', 'agent', '2026-01-01', null, '2025-01-14'],
    );
    assert.deepEqual([t?.template_id, t?.agent, t?.thinking], [null, null, null]);
    assert.deepEqual(ralphTask(p, 3)?.depends_on, [2]);
    assert.equal(ralphTask(p, 21), undefined);
    // serde's unwrap_or_default: one bad element empties the whole list.
    assert.deepEqual(ralphTask(mutate(legacy(), `UPDATE tasks SET tags = '["ui", 7]' WHERE id = 1`), 1)?.tags, []);
  });

  test('ralphComments reads task_comments, oldest first', () => {
    const c = ralphComments(legacy(), 4);
    assert.deepEqual(
      c.map((x) =>
        x.generation === 'legacy' ? [x.id, x.author, x.discipline, x.priority, x.agent_task_id, x.body] : [],
      ),
      [
        [4, 'quality', 'quality', 'high', 4, 'Found edge case: empty URL string passes validation. Adding test.'],
        [5, 'human', null, null, null, 'Also test unicode URLs please.'],
      ],
    );
  });

  test('ralphFeature: exact name, learnings from JSON strings or objects', () => {
    const p = legacy();
    assert.equal(ralphFeature(p, 'bookmark-crud')?.acronym, 'BKMK');
    assert.equal(ralphFeature(p, 'BOOKMARK-CRUD'), undefined); // BINARY primary key
    const q = mutate(
      legacy(),
      `UPDATE features SET learnings = '["plain text", {"text": "object text", "reason": "why", "source": "human", "task_id": 4,
         "iteration": 2, "created": "2026-01-02T00:00:00Z", "hit_count": 3, "reviewed": true}]',
         dependencies = '["collections"]', knowledge_paths = '["docs/a.md"]' WHERE name = 'bookmark-crud'`,
    );
    const f = ralphFeature(q, 'bookmark-crud');
    assert.deepEqual(
      f?.learnings.map((l) => [l.text, l.reason, l.source, l.task_id, l.iteration, l.created, l.hit_count, l.reviewed]),
      [
        ['plain text', null, 'auto', null, null, null, 1, false],
        ['object text', 'why', 'human', 4, 2, '2026-01-02T00:00:00Z', 3, true],
      ],
    );
    assert.deepEqual([f?.dependencies, f?.knowledge_paths], [['collections'], ['docs/a.md']]);
    assert.equal(counts(q).learnings, 2);
    // An object without text fails FeatureLearning's Deserialize: Ralph then sees no learnings at all.
    const bad = mutate(
      legacy(),
      `UPDATE features SET learnings = '["fine", {"reason": "no text"}]' WHERE name = 'search'`,
    );
    assert.deepEqual(ralphFeature(bad, 'search')?.learnings, []);
  });

  test('ralphDiscipline: skills and MCP servers from JSON', () => {
    const p = legacy();
    const d = ralphDiscipline(p, 'frontend');
    assert.deepEqual(d?.skills, ['react-19', 'typescript', 'tailwind-v4', 'zustand', 'tanstack-query', 'tauri-ipc']);
    assert.deepEqual([d?.acronym, d?.icon, d?.color, d?.agent], ['FRNT', 'Code', '#068d87', null]);
    const q = mutate(
      legacy(),
      `UPDATE disciplines SET mcp_servers = '[{"name": "fs", "command": "npx", "args": ["first", "second"], "env": {"ROOT": "/x"}}, {"name": "bare", "command": "x"}]' WHERE name = 'frontend'`,
    );
    assert.deepEqual(ralphDiscipline(q, 'frontend')?.mcp_servers, [
      { name: 'fs', command: 'npx', args: ['first', 'second'], env: { ROOT: '/x' } },
      { name: 'bare', command: 'x', args: [], env: {} },
    ]);
  });

  const BREAKS: Record<string, string> = {
    integrity_check: `${OFF_CHECKS} UPDATE metadata SET id = 2`,
    foreign_key_check: `${OFF_FKS} UPDATE task_comments SET task_id = 999 WHERE id = 1`,
    task_status_known: "UPDATE tasks SET status = 'needs_input' WHERE id = 5",
    done_has_completed: 'UPDATE tasks SET completed = NULL WHERE id = 1',
    priority_known: "UPDATE tasks SET priority = 'urgent' WHERE id = 1",
    provenance_known: "UPDATE tasks SET provenance = 'robot' WHERE id = 1",
    acronym_format: "UPDATE features SET acronym = 'se' WHERE name = 'search'",
    legacy_json_arrays: "UPDATE tasks SET tags = 'ui,design' WHERE id = 1",
    legacy_json_items: `UPDATE features SET learnings = '["fine", {"reason": "no text"}]' WHERE name = 'search'`,
    depends_on_exists: "UPDATE tasks SET depends_on = '[99]' WHERE id = 3",
  };

  test('every legacy invariant has a break case', () => {
    assert.deepEqual(Object.keys(BREAKS).sort(), [...LEGACY_INVARIANT_NAMES].sort());
  });

  for (const [rule, sql] of Object.entries(BREAKS)) {
    test(`breaking ${rule} is caught`, () => {
      assertNamesRule(legacyInvariants(mutate(legacy(), sql)), rule);
    });
  }

  test('a NULL features/disciplines list (the row would vanish in 936f316) is flagged', () => {
    assertNamesRule(
      legacyInvariants(mutate(legacy(), "UPDATE disciplines SET skills = NULL WHERE name = 'data'")),
      'legacy_json_arrays',
    );
  });
});

describe('both generations of 04-desktop-dev agree', { skip: HEAD_FIXTURE_SKIP || FIXTURE_SKIP }, () => {
  test("tasks 1..20 read the same (apart from updated, which head's triggers stamped)", () => {
    // Besides updated, what only head's schema has: template_id, agent, model, effort, thinking.
    const apart = new Set(['updated', 'template_id', 'agent', 'model', 'effort', 'thinking']);
    const shared = (path: string, id: number) =>
      Object.entries(ralphTask(path, id) ?? assert.fail(`${path}: task ${id}`)).filter(([k]) => !apart.has(k));
    const [h, l] = [head(), legacy()];
    for (let id = 1; id <= 20; id++) assert.deepEqual(shared(h, id), shared(l, id), `task ${id}`);
  });

  test('a legacy comment is a learned signal with the same body', () => {
    const bodies = (c: RalphComment[]) => c.map((x) => x.body);
    assert.deepEqual(bodies(ralphComments(head(), 4)), bodies(ralphComments(legacy(), 4)));
  });
});
