import type { CommentStore, SignalStore, TaskStore, TaskView } from './store.js';

/**
 * TaskStore.taskView as separate reads of the store's parts (the legacy generation; the normalized one
 * for a task its task-row mirror has no row for).
 */
export const taskViewOf =
  (tasks: Pick<TaskStore, 'getTask' | 'dependentsOf'>, comments: CommentStore, signals: SignalStore) =>
  (id: number, n: number, before: number | undefined, dependents: number): TaskView | undefined => {
    const task = tasks.getTask(id);
    if (!task) return undefined;
    return {
      task,
      comments: comments.recentComments(id, n, before),
      dependents: tasks.dependentsOf(id, dependents),
      questions: signals.questions(id),
    };
  };
