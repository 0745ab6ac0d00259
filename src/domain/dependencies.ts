/**
 * The cycle (taskId → … → taskId) that giving `taskId` the dependencies `newDeps` would close, else
 * undefined: dependencies of tasks and of features must stay a DAG.
 */
export function findCycle<K>(taskId: K, newDeps: readonly K[], depsOf: (id: K) => readonly K[]): K[] | undefined {
  // A cycle appears iff taskId is reachable from one of its new dependencies.
  const parent = new Map<K, K>();
  const queue: K[] = [];
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
        const chain: K[] = [];
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

/**
 * The task a blocker's text names, or null: "task #12", "task 12", "#12" (what report_blocker writes,
 * and how Ralph's agents name an upstream task in a `blocked` signal's `on`). Only the first one counts.
 */
export function upstreamTaskIn(text: string | null): number | null {
  const m = text === null ? null : /(?:\btask\s*#?\s*|#)(\d{1,15})\b/i.exec(text);
  return m ? Number(m[1]) : null;
}

/** report_blocker's comment on the legacy generation, whose blocked_by holds only the reason. */
export const blockedComment = (reason: string, upstream: number | null): string =>
  `Blocked: ${reason}${upstream !== null ? ` (blocked on task #${upstream})` : ''}`;
