import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../db/database.js';
import { TASK_STATUSES } from '../../domain/rules.js';
import type { Task } from '../records.js';
import type { RalphStore } from '../store.js';
import { asNormalizedReads } from './dates.js';
import { describeDiffs } from './diff.js';

/**
 * Checks a migrated database before it replaces the original: Ralph's head's own read rules hold, and
 * every task, comment, feature (with its learnings) and discipline reads back through the normalized
 * store exactly as it read through the legacy one (task dates as that store reads them: dates.ts).
 */

export interface Counts {
  tasks: number;
  dependencies: number;
  criteria: number;
  tags: number;
  context_files: number;
  output_artifacts: number;
  comments: number;
  features: number;
  learnings: number;
  /** Feature knowledge of the other categories (architecture, gotcha, …). */
  knowledge: number;
  disciplines: number;
  skills: number;
}

/**
 * Ralph's head's read rules (ralph-head.md): break one and Ralph's task list fails to load. Only the new
 * file is checked (the snapshot may be attached); a person's own tables keep their foreign keys as they were
 * (userObjects.ts compares them).
 */
export function readRules(db: Db, userTables: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  const one = (sql: string) => db.get<{ n: number }>(sql)!.n;
  const integrity = db.all<{ integrity_check: string }>('PRAGMA main.integrity_check').map((r) => r.integrity_check);
  if (integrity.join() !== 'ok') problems.push(`integrity_check: ${integrity.slice(0, 3).join('; ')}`);
  const fk = db.all<{ table: string }>('PRAGMA main.foreign_key_check').filter((r) => !userTables.has(r.table));
  if (fk.length > 0) problems.push(`foreign_key_check: ${fk.length} row(s), e.g. ${JSON.stringify(fk[0])}`);
  const statuses = TASK_STATUSES.map((s) => `'${s}'`).join(', ');
  const rules: [string, string][] = [
    [
      `SELECT count(*) AS n FROM runtime_tasks WHERE status NOT IN (${statuses})`,
      'tasks with a status Ralph cannot read',
    ],
    [
      "SELECT count(*) AS n FROM runtime_tasks WHERE status = 'done' AND completed IS NULL",
      'done tasks without completed',
    ],
    [
      'SELECT count(*) AS n FROM runtime_tasks t WHERE NOT EXISTS (SELECT 1 FROM task_details d JOIN disciplines di ON di.id = d.discipline_id WHERE d.id = t.details_id) OR NOT EXISTS (SELECT 1 FROM subsystems s WHERE s.id = t.subsystem_id)',
      'tasks that do not join their details, subsystem and discipline',
    ],
    [
      'SELECT count(*) AS n FROM (SELECT task_id FROM task_acceptance_criteria GROUP BY task_id HAVING min(criterion_order) <> 0 OR max(criterion_order) <> count(*) - 1 OR count(DISTINCT criterion_order) <> count(*))',
      'tasks whose criterion_order does not run 0..n-1',
    ],
    [
      'SELECT count(*) AS n FROM task_signals s WHERE NOT EXISTS (SELECT 1 FROM agent_sessions a WHERE a.id = s.session_id)',
      'signals without their session',
    ],
  ];
  for (const [sql, what] of rules) {
    const n = one(sql);
    if (n > 0) problems.push(`${n} ${what}`);
  }
  return problems;
}

/** The counts and differences of one walk over both stores. */
export interface Comparison {
  diffs: string[];
  from: Counts;
  to: Counts;
}

/** What the migration adds or fills by design, so that it is not taken for a difference. */
export interface Expected {
  /** Per task: signals after its comments (its blocked_by, signals whose comment was deleted). */
  extraSignals: ReadonlyMap<number, number>;
  /** Per task: the completed date `--completed-from` filled. */
  filled: ReadonlyMap<number, string>;
}

const zero = (): Counts => ({
  tasks: 0,
  dependencies: 0,
  criteria: 0,
  tags: 0,
  context_files: 0,
  output_artifacts: 0,
  comments: 0,
  features: 0,
  learnings: 0,
  knowledge: 0,
  disciplines: 0,
  skills: 0,
});

function countTask(c: Counts, t: Task, comments: number): void {
  c.tasks++;
  c.dependencies += t.depends_on.length;
  c.criteria += t.acceptance_criteria.length;
  c.tags += t.tags.length;
  c.context_files += t.context_files.length;
  c.output_artifacts += t.output_artifacts.length;
  c.comments += comments;
}

/** Every task id a store lists, in id order. */
function taskIds(store: RalphStore): number[] {
  const ids: number[] = [];
  for (let after = 0; ; ) {
    const page = store.tasks.listTasks({}, { id: after }, 500);
    if (page.length === 0) return ids;
    for (const row of page) ids.push(row.id);
    after = page[page.length - 1]!.id;
  }
}

/**
 * Every task (with its comments), feature (with its learnings) and discipline, read through both stores
 * and compared field by field, counting what each holds on the way: one read of each record per store.
 * At most `max` differences are listed.
 */
export function compareStores(from: RalphStore, to: RalphStore, expected: Expected, max = 20): Comparison {
  const diffs: string[] = [];
  const counts = { from: zero(), to: zero() };
  const differ = (what: string, a: unknown, b: unknown) => {
    if (diffs.length < max && !isDeepStrictEqual(a, b))
      diffs.push(...describeDiffs(what, a, b).slice(0, max - diffs.length));
  };
  // Every task the legacy store lists is read on both sides; the new file must hold no other (its count).
  const fromIds = taskIds(from);
  for (const id of fromIds) compareTask(from, to, id, expected, counts, differ);
  const extra = to.tasks.taskIdRange().n - counts.to.tasks;
  if (extra !== 0) differ('number of tasks', counts.from.tasks, counts.to.tasks + extra);
  counts.to.tasks += extra;
  compareFeatures(from, to, counts, differ);
  compareDisciplines(from, to, counts, differ);
  differ('project', from.project.projectInfo(), to.project.projectInfo());
  return { diffs, ...counts };
}

type Differ = (what: string, a: unknown, b: unknown) => void;

function compareTask(
  from: RalphStore,
  to: RalphStore,
  id: number,
  expected: Expected,
  counts: { from: Counts; to: Counts },
  differ: Differ,
): void {
  const a = from.tasks.getTask(id)!;
  const b = to.tasks.getTask(id);
  // Comments keep their order; a blocked_by, and each signal whose comment was deleted, adds one after
  // them. An undated comment gets the migration time (a signal must have one).
  const ca = from.comments.comments(id).map(({ id: _id, ...c }) => c);
  countTask(counts.from, a, ca.length);
  if (!b) {
    differ(`task ${id}`, a, undefined);
    return;
  }
  const cb = to.comments
    .comments(id)
    .map(({ id: _id, ...c }, i) => (ca[i] && !ca[i].created ? { ...c, created: ca[i].created } : c));
  countTask(counts.to, b, cb.length);
  const { template: _t, ...rest } = b;
  differ(`task ${id}`, asNormalizedReads(a, expected.filled.get(id)), rest);
  differ(`comments of task ${id}`, ca, cb.slice(0, ca.length));
  if (cb.length !== ca.length + (a.blocked_by ? 1 : 0) + (expected.extraSignals.get(id) ?? 0))
    differ(`comment count of task ${id}`, ca.length, cb.length);
}

function compareFeatures(from: RalphStore, to: RalphStore, counts: { from: Counts; to: Counts }, differ: Differ) {
  // A learning's absent reason/task/iteration and a null one read alike.
  const feature = (store: RalphStore, name: string) => {
    const f = store.features.getFeature(name);
    return (
      f && {
        ...f,
        learnings: f.learnings.map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== null))),
      }
    );
  };
  for (const [store, c] of [
    [from, counts.from],
    [to, counts.to],
  ] as const)
    for (const f of store.features.listFeatures()) {
      c.features++;
      c.learnings += store.features.getFeature(f.name)!.learnings.length;
      c.knowledge += store.features.knowledge(f.name).filter((k) => k.category !== 'learning').length;
    }
  // Every entry in the same order, ids aside (legacy learnings have none); a discipline that no longer
  // exists has no home on the new file (plan.ts notes it).
  const known = new Set(to.disciplines.listDisciplines().map((d) => d.name));
  const knowledge = (store: RalphStore, name: string) =>
    store.features.knowledge(name).map(({ id: _id, ...k }) => ({
      ...k,
      discipline: k.discipline !== null && known.has(k.discipline) ? k.discipline : null,
    }));
  for (const f of from.features.listFeatures()) {
    differ(`feature ${f.name}`, feature(from, f.name), feature(to, f.name));
    differ(`knowledge of feature ${f.name}`, knowledge(from, f.name), knowledge(to, f.name));
  }
}

function compareDisciplines(from: RalphStore, to: RalphStore, counts: { from: Counts; to: Counts }, differ: Differ) {
  for (const [store, c] of [
    [from, counts.from],
    [to, counts.to],
  ] as const)
    for (const d of store.disciplines.listDisciplines()) {
      c.disciplines++;
      c.skills += store.disciplines.getDiscipline(d.name)!.skills.length;
    }
  const servers = (list: unknown[]) =>
    list.map((s) => {
      const o = s as { name: string; command: string; args?: string[]; env?: Record<string, string> };
      return { name: o.name, command: o.command, args: o.args ?? [], env: o.env ?? {} };
    });
  for (const d of from.disciplines.listDisciplines()) {
    const a = from.disciplines.getDiscipline(d.name)!;
    const b = to.disciplines.getDiscipline(d.name);
    differ(
      `discipline ${d.name}`,
      { ...a, mcp_servers: servers(a.mcp_servers) },
      b && { ...b, mcp_servers: servers(b.mcp_servers) },
    );
  }
}
