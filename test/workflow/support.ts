import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Project } from '../../src/domain/project.js';
import { row, rows, type AnyRow } from '../helpers/assertions.js';
import { sql } from '../helpers/project.js';
import type { Session } from '../helpers/server.js';

/**
 * Small helpers shared by the workflow tests (issue 3): reading Ralph's rows and ralph-mcp's own
 * tables back with SQL, and writing rows "as Ralph would" (plain SQL on a second connection).
 */

export const taskRow = (p: Project, id: number): AnyRow | undefined => row(p, 'SELECT * FROM tasks WHERE id = ?', id);
export const commentsOf = (p: Project, taskId: number): AnyRow[] =>
  rows(p, 'SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', taskId);
export const maxTaskId = (p: Project): number => Number(row(p, 'SELECT coalesce(max(id), 0) AS m FROM tasks')!.m);
export const maxCommentId = (p: Project): number =>
  Number(row(p, 'SELECT coalesce(max(id), 0) AS m FROM task_comments')!.m);
export const deps = (p: Project, id: number): number[] => JSON.parse(String(taskRow(p, id)!.depends_on)) as number[];

export const hasTable = (p: Project, name: string): boolean =>
  rows(p, "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?", name).length > 0;

/** ralph_mcp_audit rows (oldest first), optionally filtered; [] while the table does not exist yet. */
export function auditRows(p: Project, where = '1', ...params: unknown[]): AnyRow[] {
  if (!hasTable(p, 'ralph_mcp_audit')) return [];
  return rows(p, `SELECT * FROM ralph_mcp_audit WHERE ${where} ORDER BY id`, ...params);
}

/** ralph_mcp_signals rows (oldest first); [] while the table does not exist yet. */
export function signalRows(p: Project, where = '1', ...params: unknown[]): AnyRow[] {
  if (!hasTable(p, 'ralph_mcp_signals')) return [];
  return rows(p, `SELECT * FROM ralph_mcp_signals WHERE ${where} ORDER BY id`, ...params);
}

/** Runs statements on a second connection, in one transaction, the way Ralph writes. */
export function ralphWrites(p: Project, fn: (run: (text: string, ...params: unknown[]) => void) => void): void {
  const db = sql(p);
  try {
    db.pragma('foreign_keys = ON');
    db.transaction(() => fn((text, ...params) => void db.prepare(text).run(...params)))();
  } finally {
    db.close();
  }
}

export interface RalphTask {
  id: number;
  feature?: string;
  discipline?: string;
  title: string;
  description?: string | null;
  status?: string;
  priority?: string | null;
  depends_on?: number[];
  hints?: string | null;
  acceptance_criteria?: string[];
  output_artifacts?: string[];
}

/** Inserts tasks with plain SQL, as Ralph does (explicit ids, JSON text columns). */
export function insertTasks(p: Project, tasks: RalphTask[]): void {
  ralphWrites(p, (run) => {
    for (const t of tasks) {
      run(
        `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, tags, depends_on, created, acceptance_criteria,
           context_files, output_artifacts, hints, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?, '2026-02-01', ?, '[]', ?, ?, 'human')`,
        t.id,
        t.feature ?? 'search',
        t.discipline ?? 'backend',
        t.title,
        t.description ?? null,
        t.status ?? 'pending',
        t.priority === undefined ? 'medium' : t.priority,
        JSON.stringify(t.depends_on ?? []),
        JSON.stringify(t.acceptance_criteria ?? []),
        JSON.stringify(t.output_artifacts ?? []),
        t.hints ?? null,
      );
    }
  });
}

/** Adds a comment with plain SQL, as Ralph does. */
export function insertComment(p: Project, taskId: number, body: string, author = 'human'): void {
  ralphWrites(p, (run) =>
    run(
      "INSERT INTO task_comments (task_id, author, body, created) VALUES (?, ?, ?, '2026-02-01T10:00:00Z')",
      taskId,
      author,
      body,
    ),
  );
}

/** Calls a tool the session does not have: the SDK client rejects with a JSON-RPC error. */
export async function callUnknown(s: Session, name: string, args: Record<string, unknown>): Promise<McpError> {
  try {
    await s.client.callTool({ name, arguments: args });
  } catch (err) {
    assert.ok(err instanceof McpError, `expected a JSON-RPC error, got ${String(err)}`);
    return err;
  }
  assert.fail(`calling ${name} succeeded`);
}

/** Ids of a result list. */
export const ids = (list: { id: number }[]): number[] => list.map((x) => x.id);
