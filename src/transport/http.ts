import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';
import { StartupError } from '../errors.js';
import { createMcpServer } from '../server/createServer.js';
import { narrowToTask } from '../session/narrow.js';
import type { SessionPlan } from '../session/plan.js';

/**
 * `--transport http`: Streamable HTTP at /mcp for IDEs and shared deployments. Every MCP session gets
 * the launch flags' tool set and its own scope; nothing a client sends widens it.
 * Safety: loopback by default; Host and Origin must name this server (DNS-rebinding protection); a
 * bearer token (--auth-token or RALPH_MCP_TOKEN) is checked when set and required off loopback.
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
/** Header (or `?task=` on the URL) that narrows one connection to a task: see session/narrow.ts. */
export const TASK_HEADER = 'ralph-task';

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);

export interface HttpOptions {
  host: string;
  port: number;
  token?: string | undefined;
}

export async function serveHttp(opts: HttpOptions, plan: SessionPlan, store: RalphStore, log: Logger): Promise<void> {
  if (!LOOPBACK.has(opts.host) && !opts.token) {
    throw new StartupError(`--host ${opts.host} is not loopback: set --auth-token (or RALPH_MCP_TOKEN) so that only your clients can connect`);
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let count = 0;
  let port = opts.port;
  const allowedHosts = () => new Set([...LOOPBACK, opts.host].flatMap((h) => [`${h.includes(':') ? `[${h}]` : h}:${port}`]));

  const server = createServer((req, res) => {
    void handle(req, res).catch((err) => {
      log.error({ err }, 'http request failed');
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const hosts = allowedHosts();
    if (!hosts.has(String(req.headers.host ?? ''))) return reply(res, 403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this server`);
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.has(originHost(origin))) return reply(res, 403, `Origin ${JSON.stringify(origin)} is not allowed`);
    if (opts.token && !bearerMatches(req.headers.authorization, opts.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return reply(res, 401, 'missing or wrong bearer token');
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const t = sessions.get(sid);
      if (!t) return reply(res, 404, 'unknown or ended MCP session; initialize a new one');
      return t.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'a new MCP session starts with a POST initialize request');
    // Documented narrowing: a connection may ask for one task's session (never a wider one).
    const askedTask = headerValue(req.headers[TASK_HEADER]) ?? url.searchParams.get('task') ?? undefined;
    let sessionPlan = plan;
    if (askedTask !== undefined) {
      const narrowed = narrowToTask(plan, store, askedTask);
      if (!narrowed.ok) return reply(res, 403, `cannot narrow this session: ${narrowed.reason}`);
      sessionPlan = narrowed.plan;
    }
    const n = ++count;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    const scope = { ...sessionPlan.scope, sessionId: `${sessionPlan.scope.sessionId}-h${n}` };
    const mcp = createMcpServer({ ...sessionPlan, scope }, store, log.child({ http_session: n, task: scope.taskId }));
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (err) => reject(new StartupError(`cannot listen on ${opts.host}:${opts.port}: ${err.message}`)));
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const addr = server.address();
  if (addr && typeof addr === 'object') port = addr.port;
  log.info({ host: opts.host, port, auth: Boolean(opts.token) }, 'listening');

  const stop = (reason: string) => {
    log.info({ reason }, 'shutting down');
    server.close();
    // Calls already dispatched finish (they are synchronous) before the next macrotask; then close.
    setImmediate(() => {
      for (const t of sessions.values()) void t.close().catch(() => undefined);
      store.close();
      process.exit(0);
    });
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop(sig));
}

function originHost(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return '';
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
