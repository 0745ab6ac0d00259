import type { Db } from '../../db/database.js';
import type { Claim, HistoryRow } from '../records.js';

/**
 * Claims with leases (schema/ralph-mcp.sql ralph_mcp_claims), the same on both generations: which session
 * holds which task, since when, until when its lease runs. Times are ISO 8601 UTC with milliseconds
 * (fixed width, so they compare as text). Reads work before our tables exist (nothing is held then).
 */

const present = new WeakMap<Db, true>();
/** Whether our claim tables exist yet (remembered once they do: they are never dropped while open). */
export function claimTables(db: Db): boolean {
  if (present.has(db)) return true;
  const yes =
    db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_claims'") !== undefined;
  if (yes) present.set(db, true);
  return yes;
}

export function claimsStore(db: Db) {
  return {
    claimOf(taskId: number): Claim | undefined {
      if (!claimTables(db)) return undefined;
      return db.get<Claim>(
        'SELECT task_id, session_id, claimed_at, lease_until FROM ralph_mcp_claims WHERE task_id = ?',
        taskId,
      );
    },
    /** The claims on these tasks (a list page), by task id. */
    claimsOf(taskIds: readonly number[]): Map<number, Claim> {
      if (taskIds.length === 0 || !claimTables(db)) return new Map();
      const rows = db.all<Claim>(
        'SELECT task_id, session_id, claimed_at, lease_until FROM ralph_mcp_claims WHERE task_id IN (SELECT value FROM json_each(?))',
        JSON.stringify(taskIds),
      );
      return new Map(rows.map((r) => [r.task_id, r]));
    },
    /** The session's claims (normally one). */
    sessionClaims(sessionId: string): Claim[] {
      if (!claimTables(db)) return [];
      return db.all<Claim>(
        'SELECT task_id, session_id, claimed_at, lease_until FROM ralph_mcp_claims WHERE session_id = ? ORDER BY task_id',
        sessionId,
      );
    },
    /** Claims whose lease ran out before `now`, longest expired first, at most `limit`. */
    expiredClaims(now: string, limit: number): Claim[] {
      if (!claimTables(db)) return [];
      return db.all<Claim>(
        'SELECT task_id, session_id, claimed_at, lease_until FROM ralph_mcp_claims WHERE lease_until < ? ORDER BY lease_until LIMIT CAST(? AS INTEGER)',
        now,
        limit,
      );
    },
    /** Records (or replaces) the claim on a task. Inside a write. */
    putClaim(c: Claim): void {
      db.run(
        'INSERT OR REPLACE INTO ralph_mcp_claims (task_id, session_id, claimed_at, lease_until) VALUES (?, ?, ?, ?)',
        c.task_id,
        c.session_id,
        c.claimed_at,
        c.lease_until,
      );
    },
    /**
     * Renews one claim, named by task, session and since (two processes launched with one --session-id
     * hold distinct claims: neither renews the other's). Inside a write.
     */
    renewLease(c: Pick<Claim, 'task_id' | 'session_id' | 'claimed_at'>, until: string): number {
      return Number(
        db.run(
          'UPDATE ralph_mcp_claims SET lease_until = ? WHERE task_id = ? AND session_id = ? AND claimed_at = ? AND lease_until < ?',
          until,
          c.task_id,
          c.session_id,
          c.claimed_at,
          until,
        ).changes,
      );
    },
    /** Drops the claim on a task (whoever holds it). Inside a write. */
    dropClaim(taskId: number): void {
      if (claimTables(db)) db.run('DELETE FROM ralph_mcp_claims WHERE task_id = ?', taskId);
    },
    /** A task's history: audit rows about it with id > after, oldest first, at most limit. */
    taskHistory(taskId: number, after: number, limit: number): HistoryRow[] {
      if (!claimTables(db)) return [];
      return db.all<HistoryRow>(
        `SELECT a.id, a.created, a.session_id, a.recipe, a.discipline, a.tool, a.arguments, a.outcome
         FROM ralph_mcp_audit_tasks h JOIN ralph_mcp_audit a ON a.id = h.audit_id
         WHERE h.task_id = ? AND h.audit_id > ? ORDER BY h.audit_id LIMIT CAST(? AS INTEGER)`,
        taskId,
        after,
        limit,
      );
    },
  };
}

export type ClaimsStore = ReturnType<typeof claimsStore>;
