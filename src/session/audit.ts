import type { Db } from '../db/database.js';
import { timestamp } from '../domain/rules.js';
import type { SessionScope } from '../registry/types.js';

/**
 * The session record: one ralph_mcp_audit row per call that writes (inside the same transaction as a
 * database write, so the record and the change land together; after the append for a state file) and
 * per refused call. Ralph reads it with SQL.
 */
const MAX_ARGS_CHARS = 4000;

/** Inserts one audit row; the caller has made sure our tables exist and holds the write transaction. */
export function recordCall(db: Db, session: SessionScope, tool: string, args: unknown, outcome: string): void {
  let text = JSON.stringify(args ?? {}) ?? '{}';
  if (text.length > MAX_ARGS_CHARS) text = `${text.slice(0, MAX_ARGS_CHARS)}…(truncated)`;
  db.run(
    'INSERT INTO ralph_mcp_audit (session_id, recipe, discipline, task_id, tool, arguments, outcome, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    session.sessionId,
    session.recipe,
    session.discipline,
    session.taskId,
    tool,
    text,
    outcome,
    timestamp(),
  );
}
