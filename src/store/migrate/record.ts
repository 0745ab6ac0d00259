import { basename } from 'node:path';
import type { Db } from '../../db/database.js';
import { timestamp } from '../../domain/rules.js';
import type { CompletedFill } from './completed.js';

/**
 * A `--completed-from` choice in the session record: one ralph_mcp_audit row (tool `migrate`) naming the
 * backup, the choice and the tasks it filled, linked to each of those tasks so that task_history shows
 * where its completed date came from. (A migration without a choice adds no row: the history stays as
 * it was.)
 */

export interface MigrationRecord {
  stamp: string;
  backup: string;
  completed: CompletedFill;
  userObjects: string[];
}

/** The session id the migration's row carries: one per run, dated like its backup. */
export const migrationSession = (stamp: string): string => `ralph-mcp-migrate-${stamp}`;

/** Writes the row (inside the build's transaction, after the carried audit rows); returns its id. */
export function recordMigration(db: Db, r: MigrationRecord): number {
  const filled = [...r.completed.values.keys()];
  const args = {
    from: 'legacy',
    backup: basename(r.backup),
    completed_from: r.completed.from,
    completed_filled: filled,
    user_objects: r.userObjects,
  };
  // Past every id a carried history link names too, so that no link left by a deleted row points at this one.
  const id = db.get<{ n: number }>(
    `SELECT max(coalesce((SELECT max(id) FROM ralph_mcp_audit), 0),
                coalesce((SELECT max(audit_id) FROM ralph_mcp_audit_tasks), 0)) + 1 AS n`,
  )!.n;
  db.run(
    `INSERT INTO ralph_mcp_audit (id, session_id, recipe, discipline, task_id, tool, arguments, outcome, created)
     VALUES (?, ?, NULL, NULL, NULL, 'migrate', ?, 'ok', ?)`,
    id,
    migrationSession(r.stamp),
    JSON.stringify(args),
    timestamp(),
  );
  for (const taskId of filled)
    db.run('INSERT INTO ralph_mcp_audit_tasks (task_id, audit_id) VALUES (?, ?)', taskId, id);
  return id;
}
