import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import type { Project } from '../../src/domain/project.js';
import { serverCommand } from './env.js';

export interface Session {
  client: Client;
  stderr: () => string;
  /** Waits (up to 5 s) until stderr matches: the log pipe is read independently of stdout. */
  waitForStderr: (pattern: RegExp) => Promise<string>;
  close: () => Promise<void>;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  /** Calls a tool and returns its structuredContent, failing the test if the call failed. */
  ok: <T = Record<string, any>>(name: string, args?: Record<string, unknown>) => Promise<T>;
  /** Calls a tool that must fail; returns the structured error. */
  fail: (name: string, args?: Record<string, unknown>) => Promise<{ code: string; message: string; details?: any }>;
  toolNames: () => Promise<string[]>;
}

/**
 * Spawns the built server (`node dist/ralph-mcp.js ...`, or as SERVER_RUNTIME says) over stdio and connects the SDK
 * client.
 */
export async function startSession(project: Project, flags: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({
    ...serverCommand(['--project', project.root, '--log-level', 'debug', ...flags]),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const client = new Client({ name: 'ralph-mcp-tests', version: '0.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`server did not start: ${(err as Error).message}\n${stderr}`);
  }
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    stderr: () => stderr,
    async waitForStderr(pattern) {
      for (let waited = 0; !pattern.test(stderr); waited += 20) {
        if (waited > 5000) throw new Error(`stderr never matched ${pattern}:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return stderr;
    },
    close: () => client.close(),
    call,
    async ok(name, args) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent as any;
    },
    async fail(name, args) {
      const r = await call(name, args);
      if (!r.isError)
        throw new Error(`${name} was expected to fail but returned ${JSON.stringify(r.structuredContent)}`);
      return (r.structuredContent as { error: { code: string; message: string } }).error;
    },
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name),
  };
}

/** Runs the CLI to completion (for startup failures and init). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const cmd = serverCommand(args);
  const r = spawnSync(cmd.command, cmd.args, {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    input: '',
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
