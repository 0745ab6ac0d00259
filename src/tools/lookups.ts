import { invalid, notFound } from '../domain/errors.js';
import type { ToolContext } from '../toolkit/context.js';
import type { Discipline, Feature, Task, TaskHead } from '../store/records.js';
import type { RalphStore, TaskView } from '../store/store.js';

/**
 * Lookups that refuse a missing row with not_found, saying what does exist so the agent can correct
 * itself. Names come back in their stored spelling (normalized names compare case-insensitively).
 */

/**
 * Which sessions make the first ones (src/registry/recipes.ts; test/contract/project.test.ts keeps this in
 * step): an agent refused on an empty project learns where to go, not only that nothing exists.
 */
const MADE_IN = {
  features: 'a braindump or ramble session creates them',
  disciplines: 'a braindump or discuss session creates them',
};

function known(names: string[], what: string, madeIn: string): string {
  if (names.length === 0) return `there are no ${what} yet; ${madeIn}`;
  return `existing ${what}: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`;
}

function taskNotFound(store: RalphStore, id: number): never {
  const r = store.tasks.taskIdRange();
  throw notFound(
    'task',
    id,
    r.n === 0 ? 'there are no tasks yet' : `task ids in this project run from ${r.lo} to ${r.hi} (${r.n} tasks)`,
  );
}

export function requireTask(store: RalphStore, id: number): Task {
  return store.tasks.getTask(id) ?? taskNotFound(store, id);
}

/** The task with what get_task shows beside it (TaskStore.taskView), or not_found. */
export function requireTaskView(
  store: RalphStore,
  id: number,
  comments: number,
  before: number | undefined,
  dependents: number,
): TaskView {
  return store.tasks.taskView(id, comments, before, dependents) ?? taskNotFound(store, id);
}

/** Only that the task exists (the cheapest read on either generation). */
export function requireTaskExists(store: RalphStore, id: number): void {
  if (!store.tasks.taskExists(id)) taskNotFound(store, id);
}

export function requireTaskHead(store: RalphStore, id: number): TaskHead {
  return store.tasks.taskHead(id) ?? taskNotFound(store, id);
}

/** The stored name of an existing feature. */
export function requireFeature(store: RalphStore, name: string): string {
  const stored = store.features.featureName(name);
  if (stored === undefined)
    throw notFound(
      store.featureNoun,
      name,
      known(store.features.featureNames(21), plural(store.featureNoun), MADE_IN.features),
    );
  return stored;
}

export function requireFeatureRecord(store: RalphStore, name: string): Feature {
  return store.features.getFeature(requireFeature(store, name))!;
}

/** The stored name of an existing discipline. */
export function requireDiscipline(store: RalphStore, name: string): string {
  const stored = store.disciplines.disciplineName(name);
  if (stored === undefined)
    throw notFound(
      'discipline',
      name,
      known(store.disciplines.disciplineNames(21), 'disciplines', MADE_IN.disciplines),
    );
  return stored;
}

export function requireDisciplineRecord(store: RalphStore, name: string): Discipline {
  return store.disciplines.getDiscipline(requireDiscipline(store, name))!;
}

/** "feature" → "features", "feature (subsystem)" → "features (subsystems)". */
export const plural = (noun: string): string =>
  noun.replace(/^(\w+)( \((\w+)\))?$/, (_m, a: string, b: string | undefined, c: string | undefined) =>
    b ? `${a}s (${c}s)` : `${a}s`,
  );

/** The task a tool without a task argument acts on: the session's own (--task N, or claimed). */
export function sessionTask(ctx: ToolContext, tool: string): number {
  const id = ctx.session.taskId;
  if (id === null)
    throw invalid(
      `${tool} acts on this session's task, and this session has none (launch it with --task N, or claim a task first)`,
    );
  return id;
}
