import type { RalphStore } from '../../src/store/store.js';

/** `n` more pending tasks of the sample's `search`/`backend`, in one transaction, as create_task makes them. */
export function addTasks(store: RalphStore, n: number): number[] {
  return store.db.write(() =>
    Array.from({ length: n }, (_, i) =>
      store.tasks.createTask({
        feature: 'search',
        discipline: 'backend',
        title: `Subscribable task ${i}`,
        description: null,
        status: 'pending',
        priority: null,
        tags: [],
        depends_on: [],
        acceptance_criteria: [],
        context_files: [],
        output_artifacts: [],
        hints: null,
        estimated_turns: null,
      }),
    ),
  );
}
