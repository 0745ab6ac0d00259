import { after } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Project } from '../../src/domain/project.js';
import { startInProc } from '../helpers/inProc.js';
import { sql } from '../helpers/project.js';
import type { InProcOptions, InProcSession } from './harness.js';

/** Helpers shared by the security, robustness, prompt and resource tests. */

/** One plain-SQL statement on another connection, as Ralph or a person with sqlite3 would make it. */
export function plainSql(p: Project, text: string, ...params: unknown[]): void {
  const db = sql(p);
  try {
    db.prepare(text).run(...params);
  } finally {
    db.close();
  }
}

/** For assert.rejects: a JSON-RPC error with this code whose message matches. */
export const rpcError = (code: number, message: RegExp) => (e: unknown) =>
  e instanceof McpError && e.code === code && message.test(e.message);

/** The text of a prompt as prompts/get answers it. */
export async function promptText(s: InProcSession, name: string, args: Record<string, string> = {}): Promise<string> {
  return ((await s.client.getPrompt({ name, arguments: args })).messages[0]!.content as { text: string }).text;
}

/** The text of a resource as resources/read answers it. */
export async function resourceText(s: InProcSession, uri: string): Promise<string> {
  return ((await s.client.readResource({ uri })).contents[0] as { text: string }).text;
}

/**
 * Opens sessions from launch flags (`['--recipe', 'yap']`) outside a contract block; each is closed after
 * the enclosing describe (or the file).
 */
export function sessions(): (p: Project, flags?: string[], opts?: InProcOptions) => Promise<InProcSession> {
  const open: InProcSession[] = [];
  after(async () => {
    for (const s of open) await s.close();
  });
  return async (p, flags, opts) => {
    const s = await startInProc(p, flags, opts);
    open.push(s);
    return s;
  };
}
