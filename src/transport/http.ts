import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';
import { StartupError } from '../domain/errors.js';
import { createMcpServer } from '../server/createServer.js';
import { narrowToTask } from '../session/narrow.js';
import { holdingUpdates } from './httpUpdates.js';
import type { SessionPlan } from '../session/plan.js';

/**
 * `--transport http`: Streamable HTTP at /mcp. Every MCP session gets the launch flags' tool set and its
 * own scope; nothing a client sends widens it. Host and Origin must name this server (DNS rebinding), and
 * a bearer token is always required, because loopback is reachable by every local account (one is
 * generated when none is given; off loopback it must be given). The constants below bound what a client
 * can make the server hold.
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
/** Header (or `?task=` on the URL) that narrows one connection to a task: see session/narrow.ts. */
export const TASK_HEADER = 'ralph-task';
/** Sessions open at once; an `initialize` past it gets 503 with Retry-After. */
export const MAX_SESSIONS = 64;
/**
 * A session with no request for this long (and none running) is closed, unless configured otherwise.
 * One with a GET stream open is asked first (a ping on its stream) and closed only if it does not answer.
 */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60 * 1000;
/** How long an idle session with a stream has to answer the server's ping: min(idle time, this). */
export const MAX_PROBE_MS = 30_000;
/**
 * The 401's challenge: `error` and `error_description` (RFC 6750) say what is wrong, for clients that show
 * it; a bare `Bearer` reads as "log in" and sent clients into OAuth discovery, which this server has none of.
 */
export const UNAUTHORIZED_CHALLENGE =
  'Bearer realm="ralph-mcp", error="invalid_token", error_description="missing or wrong bearer token: ' +
  'send Authorization: Bearer <token>, the token the server printed at start or was given"';
/** The Retry-After (seconds) sent with a 503 at the session cap. */
export const RETRY_AFTER_SECONDS = 30;
/** The largest `initialize` body read without a session. */
export const MAX_INITIALIZE_BYTES = 64 * 1024;
/** Unsent response bytes on one connection past which its next request waits (its reading paused). */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/**
 * Requests a connection may have waiting behind the one being answered before it is dropped. MCP
 * clients do not pipeline (they open a connection per concurrent request); this only stops abuse.
 */
export const MAX_QUEUED_PER_CONNECTION = 16;

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);

export interface HttpOptions {
  host: string;
  port: number;
  token?: string | undefined;
  /** Idle time after which a session is closed (default DEFAULT_SESSION_IDLE_MS). */
  sessionIdleMs?: number | undefined;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** The session's server: it pings the client when the session is idle with a stream open. */
  ping: () => Promise<unknown>;
  close: () => void;
  lastSeen: number;
  /** Requests of this session still running, its GET streams included. */
  active: number;
  /** Its open GET streams: they alone do not keep it from being idle (a client may never read them). */
  streams: Set<ServerResponse>;
  /** When the idle probe (a ping) was sent; undefined until it is, and again once any request comes. */
  probedAt?: number | undefined;
}

/** Per connection: the request being answered and the ones waiting behind it (HTTP/1.1 pipelining). */
interface ConnectionQueue {
  busy: boolean;
  waiting: (() => void)[];
}

export async function serveHttp(opts: HttpOptions, plan: SessionPlan, store: RalphStore, log: Logger): Promise<void> {
  if (!LOOPBACK.has(opts.host) && !opts.token) {
    throw new StartupError(
      `--host ${opts.host} is not loopback: set --auth-token (or RALPH_MCP_TOKEN) so that only your clients can connect`,
    );
  }
  const generated = !opts.token;
  const token = opts.token || randomBytes(24).toString('base64url');
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sessions = new Map<string, Session>();
  /** Sessions whose initialize is being handled: they hold a slot under the cap too. */
  let starting = 0;
  let count = 0;
  let port = opts.port;
  const allowedHosts = () =>
    new Set([...LOOPBACK, opts.host].flatMap((h) => [`${h.includes(':') ? `[${h}]` : h}:${port}`]));
  const queues = new WeakMap<Socket, ConnectionQueue>();

  const server = createServer((req, res) => {
    // One request at a time per connection, and only while its unsent bytes stay under the bound: a
    // client that pipelines requests and never reads the answers makes us stop reading it, not buffer
    // an answer for every request its parser already took in. The connection is held (not read, not
    // parsed) exactly while a request of it waits.
    const socket = req.socket;
    if (socket.destroyed) return; // dropped below: the rest of its last chunk is still being parsed
    let queue = queues.get(socket);
    if (!queue) {
      queue = { busy: false, waiting: [] };
      queues.set(socket, queue);
    }
    const run = () => {
      queue.busy = true;
      res.once('close', () => {
        const next = () => {
          queue.busy = false;
          const waiting = queue.waiting.shift();
          releaseConnection(socket); // the next request may still have its body to read
          waiting?.();
        };
        if (socket.writableLength >= MAX_UNSENT_BYTES && !socket.destroyed) socket.once('drain', next);
        else next();
      });
      void handle(req, res).catch((err) => {
        log.error({ err }, 'http request failed');
        if (!res.headersSent) reply(res, 500, 'internal error');
        else res.end();
      });
    };
    if (!queue.busy && socket.writableLength < MAX_UNSENT_BYTES) return run();
    if (queue.waiting.length >= MAX_QUEUED_PER_CONNECTION) {
      log.warn({ queued: queue.waiting.length }, 'connection dropped: too many pipelined requests waiting');
      socket.destroy();
      return;
    }
    holdConnection(socket);
    queue.waiting.push(run);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const hosts = allowedHosts();
    if (!hosts.has(String(req.headers.host ?? '')))
      return reply(res, 403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this server`);
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.has(originHost(origin)))
      return reply(res, 403, `Origin ${JSON.stringify(origin)} is not allowed`);
    if (!bearerMatches(req.headers.authorization, token)) {
      res.setHeader('WWW-Authenticate', UNAUTHORIZED_CHALLENGE);
      return reply(
        res,
        401,
        'missing or wrong bearer token (Authorization: Bearer <token>; the server printed it on stderr at start unless --auth-token or RALPH_MCP_TOKEN set it)',
      );
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.get(sid);
      if (!s) return reply(res, 404, 'unknown or ended MCP session; initialize a new one');
      s.active++;
      s.lastSeen = Date.now();
      s.probedAt = undefined;
      closeBackedUpStreams(s, log);
      const stream = req.method === 'GET';
      if (stream) s.streams.add(res);
      res.once('close', () => {
        s.active--;
        if (stream) s.streams.delete(res);
        else s.lastSeen = Date.now(); // a stream ending is no sign of the client
      });
      return s.transport.handleRequest(req, res);
    }
    // No session: only an initialize may follow, and nothing is built for anything else.
    if (req.method !== 'POST') return reply(res, 400, 'a new MCP session starts with a POST initialize request');
    if (sessions.size + starting >= MAX_SESSIONS) {
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      return reply(
        res,
        503,
        `this server already has ${MAX_SESSIONS} MCP sessions open (its limit); close one (DELETE /mcp with its Mcp-Session-Id) or retry later`,
      );
    }
    const body = await readBody(req, MAX_INITIALIZE_BYTES);
    if (body === null) return reply(res, 413, `an initialize request is at most ${MAX_INITIALIZE_BYTES} bytes`);
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      return reply(res, 400, 'Parse error: the body is not JSON', -32700);
    }
    if (!isInitialize(message))
      return reply(
        res,
        400,
        'no Mcp-Session-Id: a new MCP session starts with a POST initialize request (one JSON-RPC message)',
      );
    // Documented narrowing: a connection may ask for one task's session (never a wider one).
    const askedTask = headerValue(req.headers[TASK_HEADER]) ?? url.searchParams.get('task') ?? undefined;
    let sessionPlan = plan;
    if (askedTask !== undefined) {
      const narrowed = narrowToTask(plan, store, askedTask);
      if (!narrowed.ok) return reply(res, 403, `cannot narrow this session: ${narrowed.reason}`);
      sessionPlan = narrowed.plan;
    }
    if (sessions.size + starting >= MAX_SESSIONS) {
      // Checked again: other initializes may have taken the last slots while this body was read.
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      return reply(
        res,
        503,
        `this server already has ${MAX_SESSIONS} MCP sessions open (its limit); close one (DELETE /mcp with its Mcp-Session-Id) or retry later`,
      );
    }
    const n = ++count;
    starting++;
    let registered = false;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        registered = true;
        starting--;
        sessions.set(id, {
          transport,
          ping: () => mcp.ping(),
          close: closeSession,
          lastSeen: Date.now(),
          active: 1,
          streams: new Set(),
        });
        res.once('close', () => {
          const s = sessions.get(id);
          if (s) {
            s.active--;
            s.lastSeen = Date.now();
          }
        });
      },
    });
    const scope = { ...sessionPlan.scope, sessionId: `${sessionPlan.scope.sessionId}-h${n}` };
    const { server: mcp } = createMcpServer(
      { ...sessionPlan, scope },
      store,
      log.child({ http_session: n, task: scope.taskId }),
    );
    function closeSession(): void {
      void transport.close().catch(() => undefined);
      void mcp.close().catch(() => undefined);
    }
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    try {
      await mcp.connect(holdingUpdates(transport, () => sessions.get(transport.sessionId ?? '')?.streams ?? [], log));
      await transport.handleRequest(req, res, message);
    } finally {
      if (!registered) {
        // The initialize was refused (bad params, wrong protocol): nothing stays behind.
        starting--;
        closeSession();
      }
    }
  }

  // Idle sessions: a client that initializes and goes away must not hold a slot (and memory) forever,
  // nor one that keeps a GET stream open and never reads it: an open stream is no sign of a client (it
  // may sit unread in the kernel's buffers), an answer to a ping is. Real clients answer pings.
  const probeMs = Math.min(idleMs, MAX_PROBE_MS);
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) {
        closeBackedUpStreams(s, log);
        if (s.active > s.streams.size || now - s.lastSeen < idleMs) continue; // a request is running, or recent
        if (s.streams.size > 0 && s.probedAt === undefined) {
          s.probedAt = now;
          s.ping().then(
            () => {
              s.lastSeen = Date.now();
              s.probedAt = undefined;
            },
            () => undefined, // unanswered: the sweep closes it
          );
          continue;
        }
        if (s.streams.size > 0 && now - s.probedAt! < probeMs) continue;
        sessions.delete(id);
        log.info(
          { mcp_session: id, idle_ms: now - s.lastSeen, streams: s.streams.size },
          s.streams.size > 0 ? 'idle session closed: its stream did not answer a ping' : 'idle session closed',
        );
        s.close();
      }
    },
    Math.max(50, Math.min(idleMs / 2, 30_000)),
  );
  sweep.unref();

  const stop = (reason: string) => {
    log.info({ reason }, 'shutting down');
    clearInterval(sweep);
    server.close();
    // Calls already dispatched finish (they are synchronous) before the next macrotask; then close.
    setImmediate(() => {
      for (const s of sessions.values()) s.close();
      store.close();
      process.exit(0);
    });
  };
  // Before "listening" is said: whoever reads it may signal at once, and an unhandled SIGTERM kills.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop(sig));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (err) =>
      reject(new StartupError(`cannot listen on ${opts.host}:${opts.port}: ${err.message}`)),
    );
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const addr = server.address();
  if (addr && typeof addr === 'object') port = addr.port;
  if (generated) {
    // Once, on stderr (never stdout, never the log file): clients send it as `Authorization: Bearer …`.
    process.stderr.write(
      `ralph-mcp: HTTP bearer token for this run (generated; set --auth-token or RALPH_MCP_TOKEN to choose it): ${token}\n`,
    );
  }
  // In words, for the person who started it: where to connect and what to send (never the given token).
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}/mcp`;
  process.stderr.write(
    `ralph-mcp: MCP over Streamable HTTP at ${url}; clients send the header "Authorization: Bearer <token>" ` +
      `(the token ${generated ? 'printed above' : 'given by --auth-token or RALPH_MCP_TOKEN'}), ` +
      `e.g. npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "Authorization: Bearer <token>"\n`,
  );
  log.info(
    {
      host: opts.host,
      port,
      auth: generated ? 'generated' : 'given',
      max_sessions: MAX_SESSIONS,
      session_idle_ms: idleMs,
    },
    'listening',
  );
}

/**
 * A GET stream with MAX_UNSENT_BYTES or more unsent is closed (the client may open another): what the
 * server sends on it unasked (notifications) must not pile up for a client that does not read it.
 * Checked at each request of its session and at each sweep.
 */
function closeBackedUpStreams(s: Session, log: Logger): void {
  for (const res of s.streams) {
    const unsent = res.socket?.writableLength ?? 0;
    if (unsent < MAX_UNSENT_BYTES) continue;
    log.warn({ unsent_bytes: unsent }, 'GET stream closed: its client is not reading');
    s.streams.delete(res);
    res.destroy();
  }
}

/**
 * Node's HTTP server keeps its own "paused" flag on a connection (set when its pipelined responses back
 * up): while it is set, the parser stops at the current request and reading a request body does not
 * resume the socket. Setting it too is what makes the hold stick; a plain pause() would be undone by
 * the first body read. It is Node's private flag: if it ever goes, pause() and the queue bound remain.
 */
type HttpSocket = Socket & { _paused?: boolean; parser?: { pause?: () => void; resume?: () => void } | null };
function holdConnection(socket: Socket): void {
  const s = socket as HttpSocket;
  s._paused = true;
  s.parser?.pause?.();
  s.pause();
}
function releaseConnection(socket: Socket): void {
  const s = socket as HttpSocket;
  if (!s._paused) return;
  s._paused = false;
  s.parser?.resume?.();
  s.resume();
}

/** The body, or null past `max` bytes (reading stops there; the connection is not kept). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolveBody, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) return resolveBody(null);
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        resolveBody(null);
        return;
      }
      parts.push(chunk);
    });
    req.once('end', () => resolveBody(Buffer.concat(parts)));
    req.once('error', reject);
  });
}

function isInitialize(message: unknown): boolean {
  return (
    message !== null &&
    typeof message === 'object' &&
    !Array.isArray(message) &&
    (message as { method?: unknown }).method === 'initialize'
  );
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

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  // A refused request's unread body must not be parsed as the next request: close the connection.
  const unread = !res.req.complete;
  res.writeHead(status, { 'Content-Type': 'application/json', ...(unread ? { Connection: 'close' } : {}) });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
