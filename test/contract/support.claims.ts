import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { type AnyRow, row, rows } from '../helpers/assertions.js';
import { sql } from '../helpers/project.js';
import type { InProcSession } from './harness.js';
import { unchanged } from './support.js';

type Project = InProcSession['project'];

/** The audit rows matching `where`, oldest first. */
export const auditRows = (p: Project, where: string): AnyRow[] =>
  rows(p, `SELECT * FROM ralph_mcp_audit WHERE ${where} ORDER BY id`);

/** The claim row of task `id`, if any. */
export const claimRow = (p: Project, id: number): AnyRow | undefined =>
  row(p, 'SELECT * FROM ralph_mcp_claims WHERE task_id = ?', id);

/**
 * The server reads the time from Date.now() (leases, renewals, takeovers). Moving it forward lets a lease
 * run out at once, and a live lease stays live however slow the machine. Restored when test `t` ends.
 */
export function clockOf(t: TestContext): (ms: number) => void {
  const real = Date.now;
  let offset = 0;
  t.mock.method(Date, 'now', () => real() + offset);
  return (ms) => {
    offset += ms;
  };
}

/** Runs SQL on the project's database as Ralph, a person or another program would (foreign keys off). */
export function exec(p: Project, text: string): void {
  const db = sql(p);
  try {
    db.pragma('foreign_keys = OFF');
    db.exec(text);
  } finally {
    db.close();
  }
}

/** A call that must be refused with `code` (and a message matching `message`), changing nothing. */
export async function refusal(s: InProcSession, tool: string, args: object, code: string, message?: RegExp) {
  let e: Awaited<ReturnType<InProcSession['fail']>> | undefined;
  await unchanged(s, async () => {
    e = await s.fail(tool, args as Record<string, unknown>);
  });
  assert.equal(e!.code, code, `${tool} ${JSON.stringify(args)}: ${e!.message}`);
  assert.ok(e!.message.length > 0, 'an error carries a message');
  if (message) assert.match(e!.message, message);
  return e!;
}

/** What calling `name` answers when the session has no such tool: the JSON-RPC error, the name masked. */
export async function callError(s: InProcSession, name: string, args: Record<string, unknown> = {}) {
  try {
    await s.client.callTool({ name, arguments: args });
  } catch (err) {
    assert.ok(err instanceof McpError, `expected a JSON-RPC error, got ${String(err)}`);
    return { code: err.code, message: err.message.replaceAll(name, '<name>') };
  }
  assert.fail(`calling ${name} succeeded`);
}

/** The answer of a name that never existed, which a hidden or filtered-out tool must give too. */
export const UNKNOWN_TOOL = { code: -32602, message: 'MCP error -32602: Unknown tool: <name>' };
