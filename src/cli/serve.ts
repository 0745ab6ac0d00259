import { resolve } from 'node:path';
import { StartupError } from '../domain/errors.js';
import { askSeconds } from '../server/askInClient.js';
import { resultTextMode } from '../server/resultCopies.js';
import { createLogger, type LogLevel } from '../server/log.js';
import type { McpSession } from '../server/createServer.js';
import { DIRECT_CALLS_ENV, answerPlainCallsDirectly } from '../transport/directCalls.js';
import { bunStdio, underBun } from '../transport/bunStdio.js';
import { LineTransport } from '../transport/lineTransport.js';
import { serveOnDemand } from '../transport/sdkOnDemand.js';
import { openSession, prepareDatabase, type SessionOptions } from '../session/open.js';
import type { RalphApi } from '../server/ralphApi.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface ServeOptions extends SessionOptions {
  logLevel: LogLevel;
  logFile?: string | undefined;
  transport?: 'stdio' | 'socket' | 'http' | undefined;
  socket?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  authToken?: string | undefined;
  /** Ralph's local API port (RALPH_API_PORT): signals go to Ralph's app, nothing is written here. */
  apiPort?: number | null | undefined;
}

export async function serve(opts: ServeOptions): Promise<void> {
  resultTextMode(); // a malformed RALPH_MCP_RESULT_TEXT fails the launch, not the first connection
  askSeconds(); // and so does a malformed RALPH_MCP_ASK_SECONDS
  const log = createLogger(opts.logLevel, opts.logFile);
  const { store, plan } = openSession(opts);
  const { project } = plan;
  for (const w of plan.warnings) log.warn(w);
  let forward: RalphApi | undefined;
  if (opts.apiPort) {
    if (opts.transport && opts.transport !== 'stdio') {
      store.close();
      throw new StartupError(
        "signals forwarded to Ralph's app (RALPH_API_PORT) are served over stdio only, as Ralph launches them",
      );
    }
    const { RalphApi } = await import('../server/ralphApi.js');
    forward = new RalphApi(opts.apiPort, project.dbPath, plan.scope.sessionId);
    try {
      await forward.start();
    } catch (err) {
      store.close();
      throw err;
    }
  } else prepareDatabase(store, log, plan);
  log.info(
    {
      session_id: plan.scope.sessionId,
      project: project.root,
      db: project.dbPath,
      schema: plan.generation,
      recipe: plan.recipe?.name ?? null,
      discipline: plan.discipline,
      task: plan.task?.id ?? null,
      tools: plan.tools.length,
      signals_to: forward?.base ?? null,
      // How the launcher compiled the server (src/startup/launcher.ts): used, none, rejected, off; null without it.
      code_cache: (globalThis as { __ralphCodeCache?: string }).__ralphCodeCache ?? null,
    },
    'session started',
  );

  if (opts.transport === 'socket') {
    if (!opts.socket) {
      store.close();
      throw new StartupError('--transport socket needs --socket PATH');
    }
    const { serveSocket } = await import('../transport/socket.js');
    try {
      await serveSocket(resolve(opts.socket), plan, store, log);
    } catch (err) {
      store.close();
      throw err;
    }
    return;
  }
  if (opts.transport === 'http') {
    const { serveHttp } = await import('../transport/http.js');
    try {
      const token = opts.authToken || process.env.RALPH_MCP_TOKEN || undefined; // none: serveHttp makes one
      await serveHttp(
        {
          host: opts.host ?? '127.0.0.1',
          port: opts.port ?? 8765,
          token,
          sessionIdleMs: sessionIdleMs(process.env.RALPH_MCP_SESSION_IDLE_SECONDS),
        },
        plan,
        store,
        log,
      );
    } catch (err) {
      store.close();
      throw err;
    }
    return;
  }
  const stdio = sessionStdio();
  const transport = new LineTransport(stdio.input, stdio.output, log);
  let mcp: McpSession | undefined;
  let closed = false;
  // The launcher's code cache waits for the Server too, made at the first call (src/startup/launcher.ts).
  let serverMade = () => {};
  (globalThis as { __ralphCodeCacheAfter?: (p: Promise<void>) => void }).__ralphCodeCacheAfter?.(
    new Promise((resolve) => {
      serverMade = resolve;
    }),
  );
  /** The session's MCP server, connected to `to` (its plain calls answered directly); none once ended. */
  const makeServer = async (to: Transport): Promise<McpSession | undefined> => {
    const { createMcpServer } = await import('../server/createServer.js');
    if (closed) return undefined;
    mcp = createMcpServer(plan, store, log, forward);
    await mcp.server.connect(to);
    answerPlainCallsDirectly(to, mcp);
    serverMade();
    return mcp;
  };
  const shutdown = (reason: string, exit: boolean) => {
    if (closed) return;
    closed = true;
    log.info({ reason }, 'session ended');
    // Read no more requests. Calls already dispatched run synchronously against SQLite and have
    // answered by the next macrotask; then the database is closed (its WAL checkpointed) and stdout
    // flushed, so every write that happened has its answer delivered.
    stdio.stop();
    transport.onmessage = undefined;
    // Before the database closes: the task this session claimed goes back (a kill -9 leaves it to the lease).
    const made = mcp;
    made?.session.close(`session ended (${reason})`);
    setImmediate(() => {
      void made?.server.close().catch(() => undefined);
      store.close();
      if (exit) stdio.flushed(() => process.exit(0));
    });
  };
  transport.onclose = () => shutdown('transport closed', false);
  stdio.input.on('end', () => shutdown('stdin closed', false));
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => shutdown(sig, true));
  // Made at the first request that needs it (transport/sdkOnDemand.ts), or at once when every request is to
  // go the SDK's way (RALPH_MCP_DIRECT_CALLS=off).
  if (process.env[DIRECT_CALLS_ENV]?.trim().toLowerCase() === 'off') await makeServer(transport);
  else {
    serveOnDemand(transport, plan, store, log, makeServer);
    await transport.start();
  }
  if (stdio.isTTY) process.stderr.write(terminalHint(plan.project.root, plan.recipe?.name));
}

/**
 * A stdio session's stdin and stdout: the process's streams under Node; under Bun, Bun's own file I/O
 * (transport/bunStdio.ts), which a start evaluates no stream module for.
 */
function sessionStdio() {
  if (underBun()) {
    const { input, output } = bunStdio();
    return {
      input,
      output,
      isTTY: input.isTTY,
      stop: () => input.stop(),
      flushed: (done: () => void) => output.whenFlushed(done),
    };
  }
  return {
    input: process.stdin,
    output: process.stdout,
    isTTY: process.stdin.isTTY,
    stop: () => process.stdin.pause(),
    flushed: (done: () => void) => process.stdout.write('', done), // stdout-ok: writes nothing, waits for the flush
  };
}

/**
 * Started by hand on a terminal, the server would otherwise sit silent: say that it waits for an MCP
 * client on stdin, and how to get one (stderr; stdout stays the protocol).
 */
function terminalHint(root: string, recipe: string | undefined): string {
  const config = `ralph-mcp config --project ${JSON.stringify(root)} --recipe ${recipe ?? 'braindump'} --out .mcp.json`;
  return [
    'ralph-mcp: this is an MCP server: it now waits for an MCP client on stdin (an agent such as Claude Code',
    `  starts it for you). To connect one: ${config}, then`,
    '  claude --mcp-config .mcp.json; or try it in the MCP Inspector: npx @modelcontextprotocol/inspector,',
    '  with this command. Ctrl-C ends it.',
    '',
  ].join('\n');
}

/** RALPH_MCP_SESSION_IDLE_SECONDS: how long an HTTP session may sit idle before it is closed (default 600). */
function sessionIdleMs(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new StartupError(
      `RALPH_MCP_SESSION_IDLE_SECONDS must be a positive number of seconds, got ${JSON.stringify(value)}`,
    );
  return seconds * 1000;
}
