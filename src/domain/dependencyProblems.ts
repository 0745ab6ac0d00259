/**
 * What is wrong with a project's dependency graph, whoever wrote it (our tools refuse these, Ralph's app
 * and plain SQL do not): cycles, dependencies on tasks that do not exist, tasks that depend on themselves,
 * and done tasks waiting on unfinished ones. Edges are `[task, depends_on]`.
 */

/** One stored dependency: the waiting task, the one it waits on, and each one's status (null: no such task). */
export interface DependencyEdge {
  task: number;
  dep: number;
  taskStatus: string | null;
  depStatus: string | null;
}

export type Edge = [task: number, dependsOn: number];

export interface DependencyProblems {
  /** Each group of tasks that wait on one another in a circle, with every edge among them (a person cuts one). */
  cycles: { tasks: number[]; edges: Edge[] }[];
  /** Dependencies naming a task that does not exist (or held by a task that no longer does). */
  dangling: Edge[];
  /** Tasks that depend on themselves. */
  self: number[];
  /** Done tasks with a dependency that is not done. */
  done_waiting: { task: number; dep: number; status: string }[];
}

const byPair = (a: Edge, b: Edge) => a[0] - b[0] || a[1] - b[1];

export function findDependencyProblems(edges: readonly DependencyEdge[]): DependencyProblems {
  const seen = new Map<number, Set<number>>();
  const dangling: Edge[] = [];
  const self = new Set<number>();
  const doneWaiting: DependencyProblems['done_waiting'] = [];
  const graph = new Map<number, number[]>();
  for (const e of edges) {
    const deps = seen.get(e.task) ?? seen.set(e.task, new Set()).get(e.task)!;
    if (deps.has(e.dep)) continue; // a legacy list may name a task twice
    deps.add(e.dep);
    if (e.taskStatus === null || e.depStatus === null) dangling.push([e.task, e.dep]);
    else if (e.task === e.dep) self.add(e.task);
    else {
      if (e.taskStatus === 'done' && e.depStatus !== 'done')
        doneWaiting.push({ task: e.task, dep: e.dep, status: e.depStatus });
      const out = graph.get(e.task);
      if (out) out.push(e.dep);
      else graph.set(e.task, [e.dep]);
    }
  }
  const cycles = stronglyConnected(graph)
    .filter((c) => c.length > 1)
    .map((tasks) => {
      const inside = new Set(tasks);
      const cut: Edge[] = tasks.flatMap((t) =>
        (graph.get(t) ?? []).filter((d) => inside.has(d)).map((d): Edge => [t, d]),
      );
      return { tasks: tasks.sort((a, b) => a - b), edges: cut.sort(byPair) };
    })
    .sort((a, b) => a.tasks[0]! - b.tasks[0]!);
  return {
    cycles,
    dangling: dangling.sort(byPair),
    self: [...self].sort((a, b) => a - b),
    done_waiting: doneWaiting.sort((a, b) => a.task - b.task || a.dep - b.dep),
  };
}

/** Tarjan's strongly connected components, iterative (a chain of 100,000 tasks must not overflow the stack). */
function stronglyConnected(graph: ReadonlyMap<number, readonly number[]>): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const components: number[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: number; i: number }[] = [{ node: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = graph.get(frame.node) ?? [];
      if (frame.i < out.length) {
        const w = out[frame.i++]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** Whether anything hides tasks from the ready list (what doctor fails on and repair, partly, removes). */
export const blocksReadiness = (p: DependencyProblems): boolean =>
  p.cycles.length + p.dangling.length + p.self.length > 0;

/** The edges a repair removes: provably broken, never a matter of judgement. */
export const removableEdges = (p: DependencyProblems): Edge[] =>
  [...p.dangling, ...p.self.map((t): Edge => [t, t])].sort(byPair);

/** `2→5, 5→2`: edges as a person reads them (a → b: a waits on b). */
export const edgeText = (edges: readonly Edge[]): string => edges.map(([a, b]) => `${a}→${b}`).join(', ');
