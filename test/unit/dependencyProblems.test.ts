import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DependencyEdge, findDependencyProblems, removableEdges } from '../../src/domain/dependencyProblems.js';

/** Edges among tasks whose statuses are given; an id without a status is a task that does not exist. */
const graph = (statuses: Record<number, string>, pairs: [number, number][]): DependencyEdge[] =>
  pairs.map(([task, dep]) => ({ task, dep, taskStatus: statuses[task] ?? null, depStatus: statuses[dep] ?? null }));
/** '2>5 5>2' as [[2, 5], [5, 2]]: task 2 depends on 5, and 5 on 2. */
const edges = (text: string) => text.split(' ').map((e) => e.split('>').map(Number) as [number, number]);

test('cycles come as groups with every edge among them; self, dangling and done-waiting apart', () => {
  const s: Record<number, string> = { 1: 'pending', 2: 'pending', 3: 'pending', 4: 'done', 5: 'pending', 6: 'done' };
  for (const id of [7, 8, 9, 10]) s[id] = 'pending';
  // 5>1 leaves the cycle (not part of it); 9>8 is a second circle inside the same group; a legacy list may
  // name a dependency twice (3>99); 123>1 is a row left by a deleted task.
  const p = findDependencyProblems(graph(s, edges('2>5 5>2 5>1 7>8 8>9 9>7 9>8 3>3 3>99 3>99 123>1 4>5 6>1 10>1')));
  assert.deepEqual(p.cycles, [
    { tasks: [2, 5], edges: edges('2>5 5>2') },
    { tasks: [7, 8, 9], edges: edges('7>8 8>9 9>7 9>8') },
  ]);
  assert.deepEqual(p.self, [3]);
  assert.deepEqual(p.dangling, edges('3>99 123>1'));
  assert.deepEqual(p.done_waiting, [
    { task: 4, dep: 5, status: 'pending' },
    { task: 6, dep: 1, status: 'pending' },
  ]);
  // Only what is provably broken is removable: never a cycle's edge.
  assert.deepEqual(removableEdges(p), edges('3>3 3>99 123>1'));
});

test('a sound graph has no problems; a chain of 100,000 tasks is walked without recursion', () => {
  const n = 100_000;
  const s: Record<number, string> = {};
  const pairs: [number, number][] = [];
  for (let i = 1; i <= n; i++) {
    s[i] = 'pending';
    if (i > 1) pairs.push([i, i - 1]);
  }
  assert.deepEqual(findDependencyProblems(graph(s, pairs)), { cycles: [], dangling: [], self: [], done_waiting: [] });
  // Closing the chain makes one cycle of every task.
  const closed = findDependencyProblems(graph(s, [...pairs, [1, n]]));
  assert.equal(closed.cycles.length, 1);
  assert.equal(closed.cycles[0]!.tasks.length, n);
  assert.equal(closed.cycles[0]!.edges.length, n);
});
