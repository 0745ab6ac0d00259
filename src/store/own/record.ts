import type { Db } from '../../db/database.js';
import { timestamp } from '../../domain/rules.js';
import type { Writer } from '../store.js';
import { REQUEST_BOUNDS } from '../../domain/limits.js';

/**
 * The session record in our own tables: a ralph_mcp_audit row per writing or refused call, in the same
 * transaction as the change it records, and a ralph_mcp_signals row per abort. The caller has made sure
 * our tables exist and holds the write transaction.
 */
/**
 * What one audit row may hold, in UTF-8 bytes: refused calls are recorded too, so an unknown tool name or
 * arguments of any size would otherwise go whole into the database, even in a read-only session.
 */
export const AUDIT_BOUNDS = REQUEST_BOUNDS.audit;

/** `text` cut to at most `max` UTF-8 bytes (marker included), never inside a character. */
export function capUtf8(text: string, max: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return text;
  const marker = `…(truncated, ${bytes} bytes)`;
  const room = Math.max(0, max - Buffer.byteLength(marker));
  // Decoding a cut buffer leaves U+FFFD for a split character: drop it.
  const head = Buffer.from(text.slice(0, room))
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return head + marker;
}

export function recordCall(
  db: Db,
  by: Writer,
  tool: string,
  args: unknown,
  outcome: string,
  about: number | readonly number[] | null = null,
): number {
  const text = capUtf8(JSON.stringify(args ?? {}) ?? '{}', AUDIT_BOUNDS.argsBytes);
  const auditId = Number(
    db.run(
      'INSERT INTO ralph_mcp_audit (session_id, recipe, discipline, task_id, tool, arguments, outcome, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      by.sessionId,
      by.recipe,
      by.discipline,
      by.taskId,
      capUtf8(tool, AUDIT_BOUNDS.toolBytes),
      text,
      outcome,
      timestamp(),
    ).lastInsertRowid,
  );
  for (const taskId of tasksNamed(by.taskId, args, about))
    db.run('INSERT OR IGNORE INTO ralph_mcp_audit_tasks (task_id, audit_id) VALUES (?, ?)', taskId, auditId);
  return auditId;
}

/** The argument names that name a task (task_history finds a call under each). */
const TASK_ARGS = ['id', 'task_id', 'parent_id', 'on_task_id'] as const;

/** The tasks an audit row is about: the session's own, and those its arguments name. */
function tasksNamed(own: number | null, args: unknown, about: number | readonly number[] | null): number[] {
  const ids = new Set<number>();
  if (own !== null) ids.add(own);
  for (const id of about === null ? [] : typeof about === 'number' ? [about] : about) ids.add(id);
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    for (const k of TASK_ARGS) {
      const v = (args as Record<string, unknown>)[k];
      if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) ids.add(v);
    }
  }
  return [...ids];
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
export const integrityCheck = (db: Db): string[] =>
  db.all<{ integrity_check: string }>('PRAGMA integrity_check').map((r) => r.integrity_check);
export const sqliteVersion = (db: Db): string => db.get<{ v: string }>('SELECT sqlite_version() AS v')!.v;
