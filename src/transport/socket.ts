import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';
import { StartupError } from '../errors.js';
import { createMcpServer } from '../server/createServer.js';
import type { SessionPlan } from '../session/plan.js';

/**
 * `--transport socket --socket PATH`: one shared server per project for sandboxed agents (the rudder
 * design, seed 004). Newline-delimited JSON-RPC on a Unix socket, one MCP session per connection, so
 * `socat - UNIX-CONNECT:PATH` is a stdio bridge. Every connection gets the launch flags' tool set and
 * its own session scope (its own claims), never more.
 */
export async function serveSocket(path: string, plan: SessionPlan, store: RalphStore, log: Logger): Promise<void> {
  const pidFile = `${path}.pid`;
  await clearStaleSocket(path, pidFile);
  let connections = 0;
  const open = new Set<Socket>();
  const server = createServer((conn) => {
    const n = ++connections;
    open.add(conn);
    const scope = { ...plan.scope, sessionId: `${plan.scope.sessionId}-c${n}` };
    const mcp = createMcpServer({ ...plan, scope }, store, log.child({ connection: n, session_id: scope.sessionId }));
    log.info({ connection: n, session_id: scope.sessionId }, 'connection opened');
    conn.on('error', (err) => log.warn({ err, connection: n }, 'connection error'));
    conn.on('close', () => {
      open.delete(conn);
      void mcp.close().catch(() => undefined);
      log.info({ connection: n }, 'connection closed');
    });
    void mcp.connect(new StdioServerTransport(conn, conn));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (err) => reject(new StartupError(`cannot listen on ${path}: ${err.message}`)));
    server.listen(path, () => resolveListen());
  });
  chmodSync(path, 0o600); // owner only: the socket is as powerful as the launch flags
  writeFileSync(pidFile, `${process.pid}\n`);
  log.info({ socket: path, pid: process.pid }, 'listening');

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down');
    server.close();
    rmSync(path, { force: true });
    rmSync(pidFile, { force: true });
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
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop(sig));
}

/** A live server owning the path is an error; a socket left by a dead one is removed. */
async function clearStaleSocket(path: string, pidFile: string): Promise<void> {
  if (!existsSync(path)) return;
  const live = await new Promise<boolean>((resolveProbe) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolveProbe(true);
    });
    probe.once('error', () => resolveProbe(false));
  });
  if (live) {
    const pid = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : 'unknown';
    throw new StartupError(`a ralph-mcp server is already listening on ${path} (pid ${pid}); connect to it, or stop it first`);
  }
  rmSync(path, { force: true });
  rmSync(pidFile, { force: true });
}
