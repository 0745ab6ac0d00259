import { type DependencyProblems, type Edge, edgeText, findDependencyProblems } from '../domain/dependencyProblems.js';
import type { RalphStore } from '../store/store.js';

/**
 * Doctor's lines on the dependency graph, whoever wrote it. Cycles, dangling and self dependencies fail:
 * each keeps tasks out of the ready list for good. A done task waiting on an unfinished one only warns:
 * it hides nothing (a done task is never offered), and a dependency reopened after the fact is a normal
 * thing for a person to look at, not a broken database.
 */
export const DEPENDENCY_LABELS = [
  'dependency cycles',
  'dangling dependencies',
  'self-dependencies',
  'done tasks waiting',
] as const;

/** How many of each a line names; `ralph-mcp repair` (a dry run) names them all. */
const SHOWN = 20;

const listed = <T>(items: readonly T[], text: (x: T) => string): string =>
  items.slice(0, SHOWN).map(text).join('; ') +
  (items.length > SHOWN ? `; … ${items.length - SHOWN} more (\`ralph-mcp repair\` lists every one)` : '');

const edges = (list: readonly Edge[]) => listed(list, ([a, b]) => `${a}→${b}`);
const cycleEdges = (list: readonly Edge[]) => edgeText(list.slice(0, SHOWN)) + (list.length > SHOWN ? ', …' : '');

export function dependencyChecks(
  store: RalphStore,
  check: (label: string, fn: () => string) => boolean,
  warn: (label: string, detail: string) => void,
  skip: (label: string, why: string) => void,
): void {
  let p: DependencyProblems | undefined;
  let total = 0;
  const [first, ...rest] = DEPENDENCY_LABELS;
  check(first, () => {
    const stored = store.tasks.dependencyEdges();
    total = stored.length;
    p = findDependencyProblems(stored);
    if (p.cycles.length === 0) return `none among ${total} dependencies`;
    throw new Error(
      `${p.cycles.length} (a→b: a waits on b): ` +
        listed(p.cycles, (c) => `tasks ${c.tasks.join(', ')} (${cycleEdges(c.edges)})`) +
        '; their tasks are never ready: a person cuts one edge of each (remove_dependency, or Ralph)',
    );
  });
  if (!p) {
    for (const label of rest) skip(label, 'the dependencies could not be read');
    return;
  }
  const found = p;
  check('dangling dependencies', () => {
    if (found.dangling.length === 0) return 'none';
    throw new Error(
      `${found.dangling.length} on a task that does not exist: ${edges(found.dangling)}; ` +
        'those tasks are never ready: `ralph-mcp repair --apply` removes them',
    );
  });
  check('self-dependencies', () => {
    if (found.self.length === 0) return 'none';
    throw new Error(
      `${found.self.length}: task(s) ${listed(found.self, String)} wait on themselves and are never ready: ` +
        '`ralph-mcp repair --apply` removes them',
    );
  });
  if (found.done_waiting.length === 0) check('done tasks waiting', () => 'none');
  else
    warn(
      'done tasks waiting',
      `${found.done_waiting.length} done task(s) wait on unfinished ones: ` +
        listed(found.done_waiting, (w) => `${w.task}→${w.dep} (${w.status})`) +
        '; reopen the task or finish its dependency (not changed by repair)',
    );
}
