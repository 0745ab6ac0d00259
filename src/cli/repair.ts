import {
  type DependencyProblems,
  type Edge,
  edgeText,
  findDependencyProblems,
  removableEdges,
} from '../domain/dependencyProblems.js';
import { locateProject } from '../domain/project.js';
import { timestamp } from '../domain/rules.js';
import { openStore } from '../store/open/openStore.js';
import type { RalphStore, Writer } from '../store/store.js';

/**
 * `ralph-mcp repair`: removes the dependencies that are provably broken — on a task that does not exist,
 * or on the task itself — and nothing else. A cycle is listed with its edges for a person to cut (which
 * edge is wrong is a judgement), and a done task waiting on an unfinished one is listed, not changed.
 * A dry run unless --apply: it opens the database read-only and says what --apply would remove. With
 * --apply, the removals and their ralph_mcp_audit row are one transaction, read and decided inside it.
 */
export function repairDependencies(projectDir: string, dbOverride: string | undefined, apply: boolean): string {
  const project = locateProject(projectDir, dbOverride);
  const { store } = openStore(project.dbPath, { readonly: !apply });
  try {
    if (!apply) {
      const p = findDependencyProblems(store.tasks.dependencyEdges());
      const edges = removableEdges(p);
      const head = edges.length
        ? `dry run, nothing changed: --apply would remove ${count(edges.length)} (a→b: a waits on b)`
        : 'nothing to remove: no dependency on a missing task or on itself';
      return [head, ...removedLines(p), ...leftLines(p)].join('\n');
    }
    store.ensureOwnTables();
    const done = store.write(() => applyRepair(store));
    const n = done.removed.length;
    const head = n
      ? `removed ${count(n)} (a→b: a waits on b; recorded in ralph_mcp_audit row ${done.auditId})`
      : 'nothing to remove: no dependency on a missing task or on itself (nothing written)';
    return [head, ...removedLines(done.problems), ...leftLines(done.problems)].join('\n');
  } finally {
    store.close();
  }
}

const count = (n: number) => `${n} broken dependenc${n === 1 ? 'y' : 'ies'}`;

/** Inside the write transaction: what is broken now, removed, with one audit row naming each edge and task. */
function applyRepair(store: RalphStore): { problems: DependencyProblems; removed: Edge[]; auditId: number | null } {
  const problems = findDependencyProblems(store.tasks.dependencyEdges());
  const removed = removableEdges(problems);
  if (removed.length === 0) return { problems, removed, auditId: null };
  const byTask = new Map<number, number[]>();
  for (const [task, dep] of removed) byTask.set(task, [...(byTask.get(task) ?? []), dep]);
  let items = 0;
  for (const [task, deps] of byTask) items += store.tasks.removeDependencies(task, deps);
  const by: Writer = { sessionId: `ralph-mcp-repair-${timestamp()}`, recipe: null, discipline: null, taskId: null };
  const args = { dangling: problems.dangling, self: problems.self, stored_items_removed: items };
  const auditId = store.audit.recordCall(by, 'repair', args, 'ok', [...byTask.keys()]);
  return { problems, removed, auditId };
}

function removedLines(p: DependencyProblems): string[] {
  const lines: string[] = [];
  if (p.dangling.length) lines.push(`  on a missing task: ${edgeText(p.dangling)}`);
  if (p.self.length) lines.push(`  on itself: ${edgeText(p.self.map((t): Edge => [t, t]))}`);
  return lines;
}

/** What a repair leaves for a person, every one of them. */
function leftLines(p: DependencyProblems): string[] {
  if (p.cycles.length + p.done_waiting.length === 0) return [];
  return [
    'left for a person (not changed):',
    ...p.cycles.map((c) => `  cycle among tasks ${c.tasks.join(', ')}: ${edgeText(c.edges)} (cut one edge)`),
    ...p.done_waiting.map((w) => `  task ${w.task} is done but waits on ${w.dep} (${w.status})`),
  ];
}
