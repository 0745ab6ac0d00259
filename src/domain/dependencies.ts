/**
 * Task dependencies form a DAG: `depends_on` may only name existing tasks, never the task itself,
 * and never close a cycle.
 *
 * Returns the cycle as a path of ids (taskId → … → taskId) if giving `taskId` the dependencies
 * `newDeps` would close one, else undefined. `depsOf` reads the current depends_on of any task.
 */
export function findCycle(taskId: number, newDeps: readonly number[], depsOf: (id: number) => readonly number[]): number[] | undefined {
  // A cycle appears iff taskId is reachable from one of its new dependencies.
  const parent = new Map<number, number>();
  const queue: number[] = [];
  for (const d of newDeps) {
    if (d === taskId) return [taskId, taskId];
    if (!parent.has(d)) {
      parent.set(d, taskId);
      queue.push(d);
    }
  }
  while (queue.length > 0) {
    const cur = queue.shift()!;
    for (const next of depsOf(cur)) {
      if (next === taskId) {
        // Walk back from cur to the first hop, then read it forwards: taskId → d0 → … → cur → taskId.
        const chain: number[] = [];
        for (let n = cur; n !== taskId; n = parent.get(n)!) chain.push(n);
        return [taskId, ...chain.reverse(), taskId];
      }
      if (!parent.has(next)) {
        parent.set(next, cur);
        queue.push(next);
      }
    }
  }
  return undefined;
}
