import type { Project } from '../../src/domain/project.js';
import type { Generation } from '../../src/store/records.js';
import { sql } from '../helpers/project.js';

/** Plain SQL as Ralph (or another program) writes it: a second connection, one transaction. */
export function ralphWrites(p: Project, fn: (run: (text: string, ...params: unknown[]) => void) => void): void {
  const db = sql(p);
  try {
    db.pragma('foreign_keys = ON');
    db.transaction(() => fn((text, ...params) => void db.prepare(text).run(...params)))();
  } finally {
    db.close();
  }
}

/** One statement, in the form `generation`'s schema takes. */
export const ralphRuns = (
  p: Project,
  generation: Generation,
  legacy: string,
  normalized: string,
  ...params: unknown[]
) => ralphWrites(p, (run) => run(generation === 'legacy' ? legacy : normalized, ...params));

/** The table holding a task's status, dates and feature: tasks, or runtime_tasks. */
export const taskTable = (generation: Generation) => (generation === 'legacy' ? 'tasks' : 'runtime_tasks');

/** Task `id`'s new title, set by plain SQL. */
export const retitle = (p: Project, generation: Generation, id: number, title: string) =>
  ralphRuns(
    p,
    generation,
    'UPDATE tasks SET title = ? WHERE id = ?',
    'UPDATE task_details SET title = ? WHERE id = (SELECT details_id FROM runtime_tasks WHERE id = ?)',
    title,
    id,
  );

export interface RalphTask {
  id: number;
  title: string;
  description?: string;
  feature?: string;
  discipline?: string;
  hints?: string;
  acceptance_criteria?: string[];
}

/** Pending, medium-priority tasks as Ralph inserts them: legacy JSON columns, or normalized child rows. */
export const insertTasks = (p: Project, generation: Generation, tasks: RalphTask[]) =>
  ralphWrites(p, (run) => {
    for (const t of tasks) {
      const [feature, discipline] = [t.feature ?? 'search', t.discipline ?? 'backend'];
      const criteria = t.acceptance_criteria ?? [];
      if (generation === 'legacy') {
        run(
          `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, created,
             acceptance_criteria, hints, provenance)
           VALUES (?, ?, ?, ?, ?, 'pending', 'medium', '2026-02-01', ?, ?, 'human')`,
          ...[t.id, feature, discipline, t.title, t.description ?? null, JSON.stringify(criteria), t.hints ?? null],
        );
        continue;
      }
      run(
        `INSERT INTO task_details (discipline_id, title, description, priority, hints, created)
           VALUES ((SELECT id FROM disciplines WHERE name = ?), ?, ?, 'medium', ?, '2026-02-01')`,
        ...[discipline, t.title, t.description ?? null, t.hints ?? null],
      );
      run(
        `INSERT INTO runtime_tasks (id, subsystem_id, details_id, status, provenance, created)
           VALUES (?, (SELECT id FROM subsystems WHERE name = ?), last_insert_rowid(), 'pending', 'human',
             '2026-02-01')`,
        ...[t.id, feature],
      );
      for (const [i, c] of criteria.entries())
        run('INSERT INTO task_acceptance_criteria (task_id, criterion, criterion_order) VALUES (?, ?, ?)', t.id, c, i);
    }
  });

/** A comment as Ralph adds one: a task_comments row, or (Ralph's head) a `learned` signal in a session of its own. */
export const insertComment = (p: Project, generation: Generation, taskId: number, body: string) =>
  ralphWrites(p, (run) => {
    const at = '2026-02-01T10:00:00Z';
    if (generation === 'legacy')
      return run(
        "INSERT INTO task_comments (task_id, author, body, created) VALUES (?, 'human', ?, ?)",
        taskId,
        body,
        at,
      );
    run(
      `INSERT OR IGNORE INTO agent_sessions (id, session_number, kind, started_by, started, ended, status)
         VALUES ('ralph-ui', (SELECT coalesce(max(session_number), 0) + 1 FROM agent_sessions), 'manual', 'human',
           ?, ?, 'finished')`,
      at,
      at,
    );
    run(
      `INSERT INTO task_signals (task_id, session_id, verb, text, kind, scope, created)
         VALUES (?, 'ralph-ui', 'learned', ?, 'discovery', 'task', ?)`,
      ...[taskId, body, at],
    );
  });
