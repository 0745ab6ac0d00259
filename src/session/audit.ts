import type { Db } from '../db/database.js';
import { ensureOwnTables } from '../db/ownSchema.js';
import { timestamp } from '../domain/rules.js';
import type { SessionScope } from '../registry/types.js';

/**
 * The session record: one ralph_mcp_audit row per call that writes (inside the same transaction as the
 * write, so the record and the change land together) and per refused call. Ralph reads it with SQL.
 */
const MAX_ARGS_CHARS = 4000;

export function recordCall(db: Db, session: SessionScope, tool: string, args: unknown, outcome: string): void {
  ensureOwnTables(db);
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
