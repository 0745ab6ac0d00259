import type { Db } from '../../db/database.js';
import { day } from '../normalized/tasks.js';
import type { Task } from '../records.js';

/**
 * Task dates arrive exactly as they were written, whatever their form: Ralph's head reads created, updated
 * and completed as optional strings (crates/sqlite-db tasks.rs `row.get(n).ok()`; its UI formats them with
 * `new Date(value)`), so a full timestamp such as `2026-01-01T10:00:00Z` needs no rewriting. ralph-mcp's
 * normalized store shows every task date as its day (Ralph's triggers write `YYYY-MM-DD HH:MM:SS` into
 * `updated`), so the records are compared as that store reads them, and the stored values byte for byte.
 */

/** A legacy task as the normalized store reads the same values: its dates as days, a filled completed. */
export function asNormalizedReads(task: Task, filled: string | undefined): Task {
  return {
    ...task,
    created: day(task.created),
    updated: day(task.updated),
    completed: day(filled ?? task.completed),
  };
}

interface DateRow {
  id: number;
  field: string;
  was: unknown;
  now: unknown;
}

/**
 * Each stored task date beside the legacy value it must equal (`completed`: the filled one where one was
 * filled, tasks.ts), storage type included; at most @max differences, by task.
 */
const STORED_DATES = `
  WITH pairs AS (
    SELECT t.id, r.created AS r_created, r.updated AS r_updated, r.completed AS r_completed,
      r.enriched_at AS r_enriched_at, d.created AS d_created, d.updated AS d_updated,
      t.created, t.updated, coalesce(f.completed, t.completed) AS completed, t.enriched_at
    FROM legacy.tasks t JOIN main.runtime_tasks r ON r.id = t.id JOIN main.task_details d ON d.id = r.details_id
    LEFT JOIN temp.migrate_filled f ON f.id = t.id)
  SELECT id, field, was, now FROM (
    SELECT id, 'runtime_tasks.created' AS field, created AS was, r_created AS now FROM pairs
    UNION ALL SELECT id, 'runtime_tasks.updated', updated, r_updated FROM pairs
    UNION ALL SELECT id, 'runtime_tasks.completed', completed, r_completed FROM pairs
    UNION ALL SELECT id, 'runtime_tasks.enriched_at', enriched_at, r_enriched_at FROM pairs
    UNION ALL SELECT id, 'task_details.created', created, d_created FROM pairs
    UNION ALL SELECT id, 'task_details.updated', updated, d_updated FROM pairs)
  WHERE now IS NOT was OR typeof(now) <> typeof(was)
  ORDER BY id LIMIT CAST(@max AS INTEGER)`;

/**
 * Every stored task date equals the legacy value, on the new file with the snapshot attached as `legacy`.
 * Returns one line per difference, naming the task, the column and both values.
 */
export function storedDates(db: Db, max = 20): string[] {
  return db
    .all<DateRow>(STORED_DATES, { max })
    .map((r) => `task ${r.id}: ${r.field}: ${JSON.stringify(r.was)} became ${JSON.stringify(r.now)}`);
}
