import { z } from 'zod';
import { conflict } from '../domain/errors.js';
import { findDependencyProblems, type DependencyProblems } from '../domain/dependencyProblems.js';
import { once, DELETE, READ, UPDATE, defineTool } from '../toolkit/tool.js';
import type { ToolContext } from '../toolkit/context.js';
import type { RalphStore } from '../store/store.js';
import { LIST_READ_MAX, namesTask, numbersOf } from '../store/json.js';
import { LIMITS, taskId } from './fields.js';
import { requireTaskExists } from './lookups.js';
import { checkDependsOn } from './validate.js';

/**
 * One dependency at a time, for reviewers and planners, without rewriting a whole depends_on list. Both
 * keep stored items they do not understand (a legacy list may hold other shapes) and are idempotent.
 */

const input = once(() =>
  z.strictObject({
    task_id: taskId(),
    depends_on: taskId(),
  }),
);
const output = once(() =>
  z.object({ task_id: z.number().int(), depends_on: z.array(z.number().int()), changed: z.boolean() }),
);

const answer = (taskId: number, items: unknown[], changed: boolean) => ({
  task_id: taskId,
  depends_on: numbersOf(items).slice(0, LIST_READ_MAX),
  changed,
});

/** The stored list, read before anything is written (a list that cannot be rewritten refuses the call). */
function storedDependencies(ctx: ToolContext, id: number): unknown[] {
  requireTaskExists(ctx.store, id);
  return ctx.store.tasks.dependencyItems(id);
}

export const addDependency = defineTool({
  name: 'add_dependency',
  title: 'Add dependency',
  category: 'tasks',
  description: 'Make a task wait for another (no cycles).',
  input,
  output,
  annotations: UPDATE,
  taskTarget: { arg: 'task_id', writes: true },
  handler({ task_id, depends_on }, ctx) {
    const items = storedDependencies(ctx, task_id);
    // Itself, an unknown task, a cycle: the same rule and message as a whole depends_on list.
    checkDependsOn(ctx.store, task_id, [depends_on]);
    if (items.some(namesTask(depends_on))) return answer(task_id, items, false);
    if (items.length >= LIMITS.listItems) {
      throw conflict(
        `task ${task_id} already has ${items.length} dependencies (at most ${LIMITS.listItems}); remove one first`,
        { limit: LIMITS.listItems },
      );
    }
    const next = [...items, depends_on];
    ctx.store.tasks.writeDependencyItems(task_id, next);
    return answer(task_id, next, true);
  },
});

export const removeDependency = defineTool({
  name: 'remove_dependency',
  title: 'Remove dependency',
  category: 'tasks',
  description: 'Stop a task waiting for another.',
  input,
  output,
  annotations: DELETE,
  taskTarget: { arg: 'task_id', writes: true },
  handler({ task_id, depends_on }, ctx) {
    // The other task need not exist: a dependency on a deleted task is exactly what one removes.
    const items = storedDependencies(ctx, task_id);
    const next = items.filter((x) => !namesTask(depends_on)(x));
    if (next.length === items.length) return answer(task_id, items, false);
    ctx.store.tasks.writeDependencyItems(task_id, next);
    return answer(task_id, next, true);
  },
});

/** At most this many of each kind (and of a cycle's tasks and edges) in an answer; `truncated` says when cut. */
export const PROBLEMS_MAX = 50;

const id = () => z.number().int();
const pair = () => z.array(id());

export const problemsShape = once(() =>
  z.object({
    cycles: z.array(z.object({ tasks: z.array(id()), edges: z.array(pair()) })),
    dangling: z.array(pair()),
    self: z.array(id()),
    done_waiting: z.array(z.object({ task: id(), dep: id(), status: z.string() })),
    truncated: z.boolean().optional(),
  }),
);

/** The project's dependency problems as a tool answers them. */
export const problemsAnswer = (store: RalphStore) => capped(findDependencyProblems(store.tasks.dependencyEdges()));

/** The problems as an answer: every list at most PROBLEMS_MAX long. */
function capped(p: DependencyProblems): DependencyProblems & { truncated?: true } {
  let cut = false;
  const cap = <T>(list: T[]): T[] => {
    if (list.length > PROBLEMS_MAX) cut = true;
    return list.slice(0, PROBLEMS_MAX);
  };
  const answer = {
    cycles: cap(p.cycles).map((c) => ({ tasks: cap(c.tasks), edges: cap(c.edges) })),
    dangling: cap(p.dangling),
    self: cap(p.self),
    done_waiting: cap(p.done_waiting),
  };
  return cut ? { ...answer, truncated: true } : answer;
}

export const dependencyProblems = defineTool({
  name: 'dependency_problems',
  title: 'Dependency problems',
  category: 'tasks',
  description:
    'Broken dependencies ([task, depends_on] pairs): cycles, missing tasks, self, done tasks waiting on unfinished.',
  input: () => z.strictObject({}),
  output: problemsShape,
  annotations: READ,
  handler: (_args, ctx) => problemsAnswer(ctx.store),
});

export const DEPENDENCY_TOOLS = [addDependency, removeDependency, dependencyProblems];
