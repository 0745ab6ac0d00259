import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { generateProject, rng } from '../../scripts/bench/datagen.js';
import { createLogger } from '../../src/server/log.js';
import { projectPaths, type Project } from '../../src/domain/project.js';
import { Session } from '../../src/session/session.js';
import { openSession, type SessionOptions } from '../../src/session/open.js';
import { GENERATIONS, type Generation } from '../../src/store/records.js';
import { openStore } from '../../src/store/open/openStore.js';
import { openInProc, type InProcSession } from '../contract/harness.js';
import { CLI } from '../helpers/env.js';
import { tempDir } from '../helpers/project.js';

/**
 * list_tasks' filters, its ready queue and next_tasks agree with a brute-force evaluation over a generated
 * 10,000-task project (scripts/bench/datagen.ts), on both generations: tasks read with plain SQL on Ralph's
 * own tables, the filters evaluated in JS as the README states them, the tools called through the real
 * tools/call path, paged with the cursor. A share of `updated` values is stored as Ralph's triggers write
 * them ('YYYY-MM-DD HH:MM:SS'), so both stored forms are compared.
 */

const N = 10_000;
const STATUSES = ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped'] as const;
const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
const RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 };

interface Row {
  id: number;
  status: string;
  priority: string | null;
  feature: string;
  discipline: string;
  tags: string[];
  deps: number[];
  updated: string | null;
  created: string | null;
  /** The session holding it (an in_progress task under a claim row the test wrote), else null. */
  holder?: string | null;
}

/** Every task, by plain SQL on Ralph's tables of the generation. */
function readAll(dbPath: string, generation: Generation): Row[] {
  const db = new Database(dbPath, { readonly: true });
  const all = (sql: string) => db.prepare(sql).all() as any[];
  try {
    if (generation === 'legacy') {
      const json = (v: string | null) => JSON.parse(v ?? '[]') as unknown[];
      return all('SELECT id, status, priority, feature, discipline, tags, depends_on, updated, created FROM tasks').map(
        ({ tags, depends_on, ...r }) => ({
          ...r,
          tags: json(tags).filter((x): x is string => typeof x === 'string'),
          deps: json(depends_on).map(Number),
        }),
      );
    }
    const byTask = (sql: string) => {
      const map = new Map<number, any[]>();
      for (const r of all(sql)) map.set(r.task_id, [...(map.get(r.task_id) ?? []), r.v]);
      return map;
    };
    const tags = byTask('SELECT task_id, tag AS v FROM task_tags');
    const deps = byTask('SELECT task_id, depends_on_task_id AS v FROM task_dependencies');
    return all(
      `SELECT t.id, t.status, d.priority, s.name AS feature, di.name AS discipline, t.updated, t.created
       FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id JOIN subsystems s ON s.id = t.subsystem_id
       JOIN disciplines di ON di.id = d.discipline_id`,
    ).map((r) => ({ ...r, tags: tags.get(r.id) ?? [], deps: deps.get(r.id) ?? [] }));
  } finally {
    db.close();
  }
}

/** The README's rules, in JS. */
function bruteForce(rows: Row[], q: Record<string, any>): number[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ready = (r: Row) =>
    r.status === 'pending' && r.deps.length <= 1000 && r.deps.every((d) => byId.get(d)?.status === 'done');
  const changed = (r: Row) => r.updated ?? r.created ?? '';
  const day = (r: Row) => (/^\d{4}-\d{2}-\d{2}/.test(changed(r)) ? changed(r).slice(0, 10) : '');
  const list = (v: unknown) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
  const statuses = list(q.filter_status);
  const priorities = list(q.filter_priority);
  let since: { day: string; time: string } | undefined;
  if (q.updated_since !== undefined) {
    const at = new Date(
      /^\d{4}-\d{2}-\d{2}$/.test(q.updated_since) ? `${q.updated_since}T00:00:00Z` : q.updated_since,
    ).toISOString();
    since = { day: at.slice(0, 10), time: at.slice(0, 19).replace('T', ' ') };
  }
  const out = rows.filter(
    (r) =>
      (statuses === undefined || statuses.includes(r.status)) &&
      (priorities === undefined || priorities.includes(r.priority)) &&
      (q.filter_feature === undefined || r.feature === q.filter_feature) &&
      (q.filter_discipline === undefined || r.discipline === q.filter_discipline) &&
      (q.filter_tag === undefined || r.tags.includes(q.filter_tag)) &&
      (q.ready === undefined || ready(r) === q.ready) &&
      (q.held_by === undefined ||
        (q.held_by === 'any' ? r.holder != null : q.held_by === 'none' ? r.holder == null : r.holder === q.held_by)) &&
      (since === undefined ||
        (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}/.test(changed(r))
          ? changed(r).slice(0, 19).replace('T', ' ') >= since.time
          : day(r) !== '' && day(r) >= since.day)),
  );
  const rank = (r: Row) => RANK[r.priority ?? ''] ?? 4;
  const first: Record<string, (a: Row, b: Row) => number> = {
    id: () => 0,
    priority: (a, b) => rank(a) - rank(b),
    updated: (a, b) => (day(a) < day(b) ? 1 : day(a) > day(b) ? -1 : 0), // newest day first
  };
  out.sort((a, b) => first[q.sort ?? 'id']!(a, b) || a.id - b.id);
  return out.map((r) => r.id);
}

function randomQuery(r: () => number, rows: Row[]): Record<string, any> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const some = <T>(xs: readonly T[]): T[] => {
    const s = xs.filter(() => r() < 0.4);
    return s.length > 0 ? s : [pick(xs)];
  };
  const sample = pick(rows);
  const q: Record<string, any> = {};
  if (r() < 0.4) q.filter_status = r() < 0.3 ? pick(STATUSES) : some(STATUSES);
  if (r() < 0.3) q.filter_priority = r() < 0.3 ? pick(PRIORITIES) : some(PRIORITIES);
  if (r() < 0.25) q.filter_feature = sample.feature;
  if (r() < 0.25) q.filter_discipline = pick(rows).discipline;
  if (r() < 0.25) q.filter_tag = sample.tags.length > 0 ? pick(sample.tags) : 'nosuchtag';
  if (r() < 0.35) q.ready = r() < 0.8;
  if (r() < 0.2) q.held_by = pick(['any', 'none', 'w1', 'w2', 'w9']);
  if (r() < 0.35) {
    const d = `2026-02-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`;
    const hour = String(Math.floor(r() * 24)).padStart(2, '0');
    q.updated_since = pick([d, `${d}T${hour}:30:00Z`, `${d}T12:00:00+05:00`, '2026-01-15']);
  }
  if (r() < 0.6) q.sort = pick(['id', 'priority', 'updated'] as const);
  return q;
}

/**
 * A session through the same tools/call path as the contract harness, without its check of Ralph's
 * read rules over the whole database after every write (the contract suite proves those; at 10,000
 * tasks they would cost seconds per claim here).
 */
function quickSession(
  project: Project,
  flags: Omit<SessionOptions, 'project'>,
): { ok(name: string, args?: Record<string, unknown>): any; close(): void } {
  const { store, plan } = openSession({ project: project.root, ...flags });
  const session = new Session(plan, store, createLogger('silent'));
  return {
    ok(name, args = {}) {
      const r = session.call(name, args) as CallToolResult;
      if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent;
    },
    close: () => store.close(),
  };
}

/** Every page of list_tasks for `q`, by `limit`; checks total on every page. */
async function listAll(
  s: InProcSession,
  q: Record<string, any>,
  limit: number,
): Promise<{ ids: number[]; total: number; capped: boolean }> {
  const ids: number[] = [];
  let cursor: string | null = null;
  let total = -1;
  let capped = false;
  do {
    const page: any = await s.ok('list_tasks', { ...q, limit, ...(cursor ? { cursor } : {}) });
    if (total >= 0) assert.equal(page.total, total, 'total changed between pages');
    total = page.total;
    capped = page.total_capped === true;
    ids.push(...page.tasks.map((t: any) => t.id));
    cursor = page.next_cursor;
  } while (cursor);
  return { ids, total, capped };
}

for (const generation of GENERATIONS) {
  describe(`filters agree with brute force over ${N.toLocaleString('en-US')} tasks [${generation}]`, async () => {
    const dir = tempDir(`ralph-filters-${generation}-`);
    generateProject(CLI, dir, N, 14, process.env, generation);
    const dbPath = join(dir, '.ralph', 'db', 'ralph.db');
    {
      // Ralph's triggers' form on about one task in five: a UTC day and time.
      const db = new Database(dbPath);
      db.prepare(
        `UPDATE ${generation === 'legacy' ? 'tasks' : 'runtime_tasks'}
         SET updated = substr(coalesce(updated, created), 1, 10) || printf(' %02d:%02d:%02d', id % 24, id % 60, (id * 7) % 60) WHERE id % 5 = 0`,
      ).run();
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    }
    const s = await openInProc(projectPaths(dir));
    after(() => s.close());
    // Claims as workers leave them: on some in_progress tasks (sessions w1, w2), and rows of finished
    // tasks left behind by crashed sessions (which hold nothing).
    const claims = new Map<number, string>();
    {
      const own = openStore(dbPath).store;
      own.ensureOwnTables();
      own.close();
      const db = new Database(dbPath);
      const put = db.prepare(
        "INSERT INTO ralph_mcp_claims (task_id, session_id, claimed_at, lease_until) VALUES (?, ?, '2026-02-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z')",
      );
      for (const r of readAll(dbPath, generation)) {
        if ((r.status === 'in_progress' && r.id % 4 !== 0) || (r.status === 'done' && r.id % 9 === 0)) {
          const who = r.id % 2 === 0 ? 'w1' : 'w2';
          put.run(r.id, who);
          claims.set(r.id, who);
        }
      }
      db.close();
    }
    const rows = readAll(dbPath, generation).map((r) => ({
      ...r,
      holder: r.status === 'in_progress' ? (claims.get(r.id) ?? null) : null,
    }));
    assert.ok(rows.filter((r) => r.holder).length > 100, 'some tasks are held');

    test('200 seeded random filter combinations: same ids, same order, same total', async () => {
      const r = rng(1414);
      let nonEmpty = 0;
      for (let i = 0; i < 200; i++) {
        const q = randomQuery(r, rows);
        const want = bruteForce(rows, q);
        // A page size that makes several pages of most answers (and a few of one row each).
        const limit = i % 10 === 0 && want.length <= 300 ? 7 : want.length > 1000 ? 500 : 97;
        const got = await listAll(s, q, limit);
        // With `ready`, total counts up to 1,000 and says when it stopped (total_capped).
        assert.equal(
          got.total,
          q.ready === undefined ? want.length : Math.min(want.length, 1000),
          `total of ${JSON.stringify(q)}`,
        );
        assert.equal(got.capped, q.ready !== undefined && want.length > 1000, `total_capped of ${JSON.stringify(q)}`);
        assert.deepEqual(got.ids, want, `ids of ${JSON.stringify(q)}`);
        if (want.length > 0) nonEmpty++;
      }
      assert.ok(nonEmpty > 100, `only ${nonEmpty} of 200 combinations matched anything`);
    });

    test('each filter alone, and the ready queue in claim order', async () => {
      for (const q of [
        { ready: true, sort: 'priority' },
        { ready: false },
        { held_by: 'w1' },
        { held_by: 'none', sort: 'priority' },
        { sort: 'updated' },
        { updated_since: '2026-02-14T12:00:00Z' },
        { filter_status: [...STATUSES] },
      ]) {
        const want = bruteForce(rows, q);
        assert.ok(want.length > 0, JSON.stringify(q));
        assert.deepEqual((await listAll(s, q, 500)).ids, want, JSON.stringify(q));
      }
    });

    test('next_tasks is the order repeated claims take, on a copy', () => {
      const copy = tempDir(`ralph-filters-copy-${generation}-`);
      const copyDb = projectPaths(copy).dbPath;
      mkdirSync(dirname(copyDb), { recursive: true });
      copyFileSync(dbPath, copyDb);
      const discipline = rows.find((r) => r.status === 'pending')!.discipline;
      for (const args of [
        {} as { discipline?: string; feature?: string },
        { discipline },
        { discipline, feature: rows.find((r) => r.discipline === discipline && r.status === 'pending')!.feature },
      ]) {
        const w = quickSession(projectPaths(copy), { recipe: 'worker' });
        try {
          const preview = w.ok('next_tasks', { ...args, limit: 12 }).tasks.map((t: any) => t.id);
          const want = bruteForce(readAll(copyDb, generation), {
            ready: true,
            sort: 'priority',
            filter_discipline: args.discipline,
            filter_feature: args.feature,
          }).slice(0, 12);
          assert.deepEqual(preview, want, `next_tasks ${JSON.stringify(args)} against brute force`);
          assert.ok(preview.length > 0);
          const claimed: number[] = [];
          for (let i = 0; i < preview.length; i++) {
            const c = w.ok('claim_next_task', args);
            assert.ok(c.claimed);
            claimed.push(c.task.id);
            // Skipped readies no other task: the rest of the preview stays the queue.
            w.ok('set_task_status', { status: 'skipped' });
          }
          assert.deepEqual(claimed, preview, `claims ${JSON.stringify(args)}`);
        } finally {
          w.close();
        }
      }
    });
  });
}
