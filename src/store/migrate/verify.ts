import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../db/database.js';
import { TASK_STATUSES } from '../../domain/rules.js';
import type { RalphStore } from '../store.js';

/**
 * Checks a migrated database before it replaces the original: Ralph's head's own read rules hold, and
 * every task, comment, feature (with its learnings) and discipline reads back through the normalized
 * store exactly as it read through the legacy one. Returns the differences (empty when all is well).
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
  disciplines: number;
  skills: number;
}

/** What the domain records hold, counted the same way on both generations. */
export function countRecords(store: RalphStore): Counts {
  const c: Counts = {
    tasks: 0,
    dependencies: 0,
    criteria: 0,
    tags: 0,
    context_files: 0,
    output_artifacts: 0,
    comments: 0,
    features: 0,
    learnings: 0,
    disciplines: 0,
    skills: 0,
  };
  for (let after = 0; ; ) {
    const page = store.tasks.listTasks({}, { id: after }, 500);
    if (page.length === 0) break;
    for (const row of page) {
      const t = store.tasks.getTask(row.id)!;
      c.tasks++;
      c.dependencies += t.depends_on.length;
      c.criteria += t.acceptance_criteria.length;
      c.tags += t.tags.length;
      c.context_files += t.context_files.length;
      c.output_artifacts += t.output_artifacts.length;
      c.comments += store.comments.comments(t.id).length;
    }
    after = page[page.length - 1]!.id;
  }
  for (const f of store.features.listFeatures()) {
    c.features++;
    c.learnings += store.features.getFeature(f.name)!.learnings.length;
  }
  for (const d of store.disciplines.listDisciplines()) {
    c.disciplines++;
    c.skills += store.disciplines.getDiscipline(d.name)!.skills.length;
  }
  return c;
}

/** Ralph's head's read rules (ralph-head.md): break one and Ralph's task list fails to load. */
export function readRules(db: Db): string[] {
  const problems: string[] = [];
  const one = (sql: string) => db.get<{ n: number }>(sql)!.n;
  const integrity = db.all<{ integrity_check: string }>('PRAGMA integrity_check').map((r) => r.integrity_check);
  if (integrity.join() !== 'ok') problems.push(`integrity_check: ${integrity.slice(0, 3).join('; ')}`);
  const fk = db.all('PRAGMA foreign_key_check');
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

/** Differences between what the two stores read, record by record (at most `max` listed). */
export function compareStores(
  from: RalphStore,
  to: RalphStore,
  extraSignals: ReadonlyMap<number, number> = new Map(),
  max = 20,
): string[] {
  const diffs: string[] = [];
  const differ = (what: string, a: unknown, b: unknown) => {
    if (!isDeepStrictEqual(a, b) && diffs.length < max)
      diffs.push(`${what}: ${JSON.stringify(a)?.slice(0, 200)} became ${JSON.stringify(b)?.slice(0, 200)}`);
  };
  for (let after = 0; ; ) {
    const page = from.tasks.listTasks({}, { id: after }, 500);
    if (page.length === 0) break;
    for (const row of page) {
      const a = from.tasks.getTask(row.id)!;
      const b = to.tasks.getTask(row.id);
      if (!b) {
        differ(`task ${row.id}`, a, undefined);
        continue;
      }
      const { template: _t, ...rest } = b;
      differ(`task ${row.id}`, a, rest);
      // Comments keep their order; a blocked_by, and each signal whose comment was deleted, adds one after
      // them. An undated comment gets the migration time (a signal must have one).
      const ca = from.comments.comments(row.id).map(({ id: _id, ...c }) => c);
      const cb = to.comments
        .comments(row.id)
        .map(({ id: _id, ...c }, i) => (ca[i] && !ca[i].created ? { ...c, created: ca[i].created } : c));
      differ(`comments of task ${row.id}`, ca, cb.slice(0, ca.length));
      if (cb.length !== ca.length + (a.blocked_by ? 1 : 0) + (extraSignals.get(row.id) ?? 0))
        differ(`comment count of task ${row.id}`, ca.length, cb.length);
    }
    after = page[page.length - 1]!.id;
  }
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
  for (const f of from.features.listFeatures()) differ(`feature ${f.name}`, feature(from, f.name), feature(to, f.name));
  for (const d of from.disciplines.listDisciplines()) {
    const a = from.disciplines.getDiscipline(d.name)!;
    const b = to.disciplines.getDiscipline(d.name);
    const servers = (list: unknown[]) =>
      list.map((s) => {
        const o = s as { name: string; command: string; args?: string[]; env?: Record<string, string> };
        return { name: o.name, command: o.command, args: o.args ?? [], env: o.env ?? {} };
      });
    differ(
      `discipline ${d.name}`,
      { ...a, mcp_servers: servers(a.mcp_servers) },
      b && { ...b, mcp_servers: servers(b.mcp_servers) },
    );
  }
  differ('project', from.project.projectInfo(), to.project.projectInfo());
  return diffs;
}
