import type { Db } from '../../db/database.js';
import { timestamp } from '../../domain/rules.js';
import type { Writer } from '../store.js';

/**
 * The session record, in our own tables (schema/ralph-mcp.sql): one ralph_mcp_audit row per call that
 * writes (inside the same transaction as a database write, so the record and the change land together;
 * after the append for a state file) and per refused call; one ralph_mcp_signals row per abort. Ralph
 * reads both with SQL. The caller has made sure our tables exist and holds the write transaction.
 */
const MAX_ARGS_CHARS = 4000;

export function recordCall(db: Db, by: Writer, tool: string, args: unknown, outcome: string): void {
  let text = JSON.stringify(args ?? {}) ?? '{}';
  if (text.length > MAX_ARGS_CHARS) text = `${text.slice(0, MAX_ARGS_CHARS)}…(truncated)`;
  db.run(
    'INSERT INTO ralph_mcp_audit (session_id, recipe, discipline, task_id, tool, arguments, outcome, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    by.sessionId,
    by.recipe,
    by.discipline,
    by.taskId,
    tool,
    text,
    outcome,
    timestamp(),
  );
}

export function recordAbort(db: Db, by: Writer, reason: string): number {
  return Number(
    db.run(
      "INSERT INTO ralph_mcp_signals (session_id, recipe, discipline, task_id, kind, reason, created) VALUES (?, ?, ?, ?, 'abort', ?, ?)",
      by.sessionId,
      by.recipe,
      by.discipline,
      by.taskId,
      reason,
      timestamp(),
    ).lastInsertRowid,
  );
}

/** Checks that read no table of Ralph's: the same on every generation. */
export const schemaReadable = (db: Db): number => db.get<{ n: number }>('SELECT count(*) AS n FROM sqlite_master')!.n;
export const integrityCheck = (db: Db): string[] => db.all<{ integrity_check: string }>('PRAGMA integrity_check').map((r) => r.integrity_check);
export const sqliteVersion = (db: Db): string => db.get<{ v: string }>('SELECT sqlite_version() AS v')!.v;
