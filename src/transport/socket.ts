import { chmodSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';
import { StartupError } from '../domain/errors.js';
import { createMcpServer } from '../server/createServer.js';
import type { SessionPlan } from '../session/plan.js';
import { answerPlainCallsDirectly } from './directCalls.js';
import { LineTransport } from './lineTransport.js';
import { claimSocketPath, createPidFile, readPidFile, removeOwnSocket } from './socketFiles.js';

/**
 * `--transport socket --socket PATH`: one shared server per project for sandboxed agents.
 * Newline-delimited JSON-RPC on a Unix socket, one MCP session per connection, so
 * `socat - UNIX-CONNECT:PATH` is a stdio bridge. Every connection gets the launch flags' tool set and
 * its own session scope (its own claims), never more. Each connection is read only while its unsent
 * answers stay under a bound (transport/lineTransport.ts, MAX_UNSENT_BYTES), so a client that never reads
 * cannot grow the shared server.
 */
export async function serveSocket(path: string, plan: SessionPlan, store: RalphStore, log: Logger): Promise<void> {
  const pidFile = `${path}.pid`;
  const claim = await claimSocketPath(path);
  if (claim === 'live') {
    throw new StartupError(
      `a ralph-mcp server is already listening on ${path} (pid ${readPidFile(pidFile) ?? 'unknown'}); connect to it, or stop it first`,
    );
  }
  // Before listening, so a refusal leaves no socket behind; the pid is written once we listen.
  const pid = createPidFile(pidFile);
  let connections = 0;
  const open = new Set<Socket>();
  const server = createServer((conn) => {
    const n = ++connections;
    open.add(conn);
    const scope = { ...plan.scope, sessionId: `${plan.scope.sessionId}-c${n}` };
    const connectionLog = log.child({ connection: n, session_id: scope.sessionId });
    const session = createMcpServer({ ...plan, scope }, store, connectionLog);
    const mcp = session.server;
    log.info({ connection: n, session_id: scope.sessionId }, 'connection opened');
    conn.on('error', (err) => log.warn({ err, connection: n }, 'connection error'));
    conn.on('close', () => {
      open.delete(conn);
      void mcp.close().catch(() => undefined);
      log.info({ connection: n }, 'connection closed');
    });
    const transport = new LineTransport(conn, conn, connectionLog);
    void mcp.connect(transport).then(() => answerPlainCallsDirectly(transport, session));
  });
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down');
    server.close();
    removeOwnSocket(path);
    pid.remove();
    // Calls already dispatched finish (they are synchronous) before the next macrotask; their answers
    // are flushed by end(), then the database is closed.
    setImmediate(() => {
      let left = open.size;
      const done = () => {
        store.close();
        process.exit(0);
      };
      if (left === 0) return done();
      for (const c of open) c.end(() => --left === 0 && done());
      setTimeout(done, 2000).unref(); // a client that never reads must not hold the exit
    });
  };
  // Before the pid file is written: whoever reads it may signal at once, and an unhandled SIGTERM kills.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop(sig));
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', (err) => reject(new StartupError(`cannot listen on ${path}: ${err.message}`)));
      // The socket file is created by bind(), inside listen(), with the process umask: under a permissive
      // one (000) it would be connectable by every local account until the chmod below. An owner-only
      // umask for that call makes it 0600 from birth. (A Unix-socket bind is synchronous in listen(),
      // so the umask is restored before any other code runs.)
      const umask = process.umask(0o177);
      try {
        server.listen(path, () => resolveListen());
      } finally {
        process.umask(umask);
      }
    });
    chmodSync(path, 0o600); // kept: owner only whatever the platform did at bind time
    pid.write(process.pid);
  } catch (err) {
    pid.remove();
    server.close();
    throw err;
  }
  log.info({ socket: path, pid: process.pid }, 'listening');
}
