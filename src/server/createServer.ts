import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';
import { packageVersion } from '../domain/packageInfo.js';
import {
  applyNow,
  applySessionPatch,
  patchedSession,
  writerOf,
  type SessionPatch,
  type SessionScope,
  type SignalForwarder,
  type ToolContext,
} from '../toolkit/tool.js';
import { requireTaskExists, sessionTask } from '../tools/lookups.js';
import { signalAnswer } from '../tools/signals.js';
import { releaseOnClose, renewLease } from '../tools/claims.js';
import type { SessionPlan, SessionTool } from '../session/plan.js';
import { argumentError, errorResult, okResult, toToolError } from '../session/toolResult.js';
import { applyScope } from '../session/scope.js';
import { readOverrides } from '../session/overrides.js';
import { conflict } from '../domain/errors.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { toolListing } from '../session/listing.js';
import { guardStdioTransport, isPlainObject, shareDrainWaits } from '../transport/stdioGuard.js';
import { z } from 'zod';
import { withClientSink } from './log.js';
import { ClientLog } from './clientLog.js';
import { resultCopiesFor, resultTextMode, type ResultCopies } from './resultCopies.js';
import { startServing } from '../startup/v8Flags.js';

/**
 * The MCP server for one session. Only the plan's tools exist here: a hidden tool is never
 * registered, so calling one gets exactly the answer an unknown name gets.
 *
 * We use the SDK's low-level Server (not McpServer) on purpose: tools/list is computed once from the
 * session plan (per-session schemas, e.g. opus_review's narrowed update_task), and tools/call
 * validates, scopes and dispatches in one place.
 */
export function createMcpServer(
  launched: SessionPlan,
  store: RalphStore,
  rootLog: Logger,
  forward?: SignalForwarder,
): Server {
  // Each server (a socket connection, an HTTP session) has its own session state: its claims and
  // what they removed are never another connection's.
  const plan: SessionPlan = { ...launched, scope: { ...launched.scope, removed: new Set(launched.scope.removed) } };
  const ralph = new RalphServer(
    { name: 'ralph-mcp', title: 'Ralph project tools', version: packageVersion() },
    {
      // A session that can claim announces the tools a claimed task's discipline removes.
      // resources.subscribe: server/watch.ts; logging: server/clientLog.ts.
      capabilities: {
        tools: { listChanged: plan.tools.some((t) => t.def.name === 'claim_next_task') },
        resources: { subscribe: true },
        prompts: {},
        completions: {},
        logging: {},
      },
      instructions: plan.instructions,
    },
    rootLog,
  );
  const server: Server = ralph;
  // A protocol-level problem (a response to nothing, a failed send) is logged; the session goes on.
  // (Not to the client: a failed send would only fail again.)
  server.onerror = (err) => rootLog.warn({ err }, 'protocol error');
  // The session's log lines also reach its client once it sets a level (logging/setLevel).
  const clientLog = new ClientLog(server);
  const log = withClientSink(rootLog, clientLog.sink);
  const ctx = toolContext(plan, store, log, forward);
  const tools = new Map(plan.tools.map((t) => [t.def.name, t]));
  let listing: { name: string }[] | undefined;
  // Decided once the client has said who it is (initialize), then kept.
  const textMode = resultTextMode();
  let copies: ResultCopies | undefined;
  const resultCopies = (): ResultCopies => {
    if (copies !== undefined) return copies;
    const client = server.getClientVersion();
    const decided = resultCopiesFor(client, textMode);
    if (client) copies = decided;
    return decided;
  };

  server.setRequestHandler(ListToolsRequestSchema, () => {
    listing ??= plan.tools.map(toolListing);
    const { removed } = ctx.session;
    return { tools: removed.size === 0 ? listing : listing.filter((t) => !removed.has(t.name)) };
  });

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    clientLog.current = extra.sendNotification;
    try {
      return handleCall(request.params);
    } finally {
      clientLog.current = undefined;
    }
  });
  // The same call, answered on the spot by the stdio fast path (RalphServer.connect); signals forwarded
  // to Ralph's app are asynchronous and take the SDK's path.
  if (!ctx.forward) {
    ralph.callNow = (params) => {
      clientLog.current = (n) => server.notification(n);
      try {
        return handleCall(params) as CallToolResult;
      } finally {
        clientLog.current = undefined;
      }
    };
  }

  const handleCall = ({
    name,
    arguments: rawArgs,
  }: {
    name: string;
    arguments?: Record<string, unknown> | undefined;
  }) => {
    startServing();
    const tool = visibleTool(tools, ctx.session, name);
    if (!tool) {
      log.info({ tool: name, outcome: 'unknown_tool' }, 'call refused');
      recordBestEffort(ctx, name, rawArgs, 'unknown_tool');
      throw unknownTool(name);
    }
    if (ctx.forward && tool.def.signal) return callForwarded(tool, rawArgs ?? {}, ctx, ctx.forward);
    const started = performance.now();
    const hidden = ctx.session.removed.size;
    const result = callTool(tool, rawArgs ?? {}, ctx);
    if (!result.isError && resultCopies() === 'structured') result.content = [];
    if (ctx.session.removed.size !== hidden)
      void server.sendToolListChanged().catch((err: unknown) => log.warn({ err }, 'could not send tools/list_changed'));
    const outcome = result.isError ? (result.structuredContent as { error: { code: string } }).error.code : 'ok';
    // debug, not info: a line per call on stderr costs more than a primary-key read (writes are in ralph_mcp_audit).
    log.debug({ tool: name, ms: Math.round((performance.now() - started) * 100) / 100, outcome }, 'call');
    if (result.isError) {
      const { code, message } = (result.structuredContent as { error: { code: string; message: string } }).error;
      clientLog.send('notice', { message: 'call refused', tool: name, outcome: code, reason: message });
    }
    return result;
  };

  registerResources(server, ctx);
  registerPrompts(server, plan, ctx);
  // A connection (socket, HTTP session) that closes gives back the task it claimed; stdio: serve.ts
  // calls releaseClaims before closing the database.
  const closed = server.onclose; // resources.ts's: subscriptions end too
  server.onclose = () => {
    releaseOnClose(ctx, 'connection closed');
    closed?.();
  };
  releasers.set(server, (why) => releaseOnClose(ctx, why));
  return server;
}

const releasers = new WeakMap<Server, (why: string) => void>();
/** Gives back the task this server's session claimed (the stdio process ending): best effort. */
export const releaseClaims = (server: Server, why: string): void => releasers.get(server)?.(why);

/** The arguments valid for this session's schema (scope not applied yet). */
function parsedArgs(tool: SessionTool, rawArgs: Record<string, unknown>): Record<string, unknown> {
  const parsed = tool.input.safeParse(rawArgs);
  if (!parsed.success) throw argumentError(parsed.error, Object.keys(tool.input.shape));
  return parsed.data as Record<string, unknown>;
}

/** The arguments as the tool's handler takes them: valid for this session's schema, scope applied. */
const checkedArgs = (tool: SessionTool, rawArgs: Record<string, unknown>, ctx: ToolContext): Record<string, unknown> =>
  applyScope(tool, parsedArgs(tool, rawArgs), ctx);

/** What every handler of this session gets. */
export function toolContext(plan: SessionPlan, store: RalphStore, log: Logger, forward?: SignalForwarder): ToolContext {
  return {
    store,
    project: plan.project,
    session: plan.scope,
    log,
    forward,
    onCommit: applyNow(plan.scope),
    disciplineOverrides(discipline) {
      const row = store.toolOverrides(discipline);
      if (!row) return [];
      try {
        return readOverrides(row.name, row.raw, store.overridesLocation() ?? undefined);
      } catch (err) {
        throw conflict(
          `${(err as Error).message}; fix them first (ralph-mcp doctor lists every discipline's overrides)`,
        );
      }
    },
  };
}

/** The tool this session may call by that name now: the plan's, less what a claim removed since. */
export function visibleTool(
  tools: ReadonlyMap<string, SessionTool>,
  session: SessionScope,
  name: string,
): SessionTool | undefined {
  return session.removed.has(name) ? undefined : tools.get(name);
}

export function callTool(tool: SessionTool, rawArgs: Record<string, unknown>, ctx: ToolContext): CallToolResult {
  const { def } = tool;
  // Any call of a session holding a claim renews its lease (at most one write per renewEvery).
  renewLease(ctx);
  try {
    const parsed = parsedArgs(tool, rawArgs);
    if (def.annotations.readOnlyHint)
      return okResult(def.handler(applyScope(tool, parsed, ctx), ctx) as Record<string, unknown>);
    if (def.category === 'state') {
      // State files are not in the database: never wait on its write lock for them. Their audit row
      // is best-effort, after the append (a file append cannot be rolled back with a transaction).
      const out = def.handler(applyScope(tool, parsed, ctx), ctx) as Record<string, unknown>;
      recordBestEffort(ctx, def.name, rawArgs, 'ok');
      return okResult(out);
    }
    // A writing call and its audit row commit together, in one IMMEDIATE transaction. Its scope is
    // decided inside that transaction, and what it does to the session waits for the commit.
    ctx.store.ensureOwnTables();
    const patches: SessionPatch[] = [];
    const inWrite: ToolContext = { ...ctx, onCommit: (patch) => patches.push(patch) };
    const out = ctx.store.write(() => {
      const result = def.handler(applyScope(tool, parsed, inWrite), inWrite) as Record<string, unknown>;
      // The audit row names the session as the call leaves it (a claim's row names the claimed task).
      ctx.store.recordCall(writerOf(patchedSession(ctx.session, patches)), def.name, rawArgs, 'ok', ctx.session.taskId);
      return result;
    });
    for (const patch of patches) applySessionPatch(ctx.session, patch);
    return okResult(out);
  } catch (err) {
    const te = toToolError(err);
    if (te.code === 'internal') ctx.log.error({ err, tool: def.name }, 'tool failed');
    // A busy database would only make us wait a second time to record that it was busy.
    if (te.code !== 'busy') recordBestEffort(ctx, def.name, rawArgs, te.code);
    return errorResult(te);
  }
}

/**
 * A signal verb in a session whose signals Ralph's app records: the same validation and scope as
 * callTool, the task checked to exist (a read), then one request to Ralph's API; nothing is written here.
 */
export async function callForwarded(
  tool: SessionTool,
  rawArgs: Record<string, unknown>,
  ctx: ToolContext,
  forward: SignalForwarder,
): Promise<CallToolResult> {
  const { def } = tool;
  try {
    const args = checkedArgs(tool, rawArgs, ctx);
    const id = sessionTask(ctx, def.name);
    requireTaskExists(ctx.store, id);
    const { verb, payload } = def.signal!;
    await forward.send(id, verb, payload(args));
    return okResult(signalAnswer(verb, id, null));
  } catch (err) {
    const te = toToolError(err);
    if (te.code === 'internal') ctx.log.error({ err, tool: def.name }, 'tool failed');
    else ctx.log.info({ tool: def.name, outcome: te.code }, 'call refused');
    return errorResult(te);
  }
}

/** Records a call outside a tool's own transaction: failing to record must not change the answer. */
function recordBestEffort(ctx: ToolContext, tool: string, args: unknown, outcome: string): void {
  if (ctx.forward) return; // Ralph's app is the only writer of a forwarding session
  try {
    ctx.store.ensureOwnTables();
    ctx.store.write(() => ctx.store.recordCall(writerOf(ctx.session), tool, args, outcome));
  } catch (err) {
    ctx.log.warn({ err, tool, outcome }, 'could not record the call in ralph_mcp_audit');
  }
}

/**
 * The SDK's Server, hardened against hostile clients:
 * - a request whose params do not match its method's schema (`resources/read` without a uri,
 *   `initialize` with a numeric protocolVersion, `tools/call` with string arguments, ...) is answered
 *   with Invalid params (-32602), not with the SDK's Internal error (-32603) carrying a raw zod dump
 *   (for tools/call the SDK's own check then answers, with its own message);
 * - a stdio/socket transport is guarded (see stdioGuard.ts): malformed and oversized lines are
 *   answered and skipped instead of being dropped silently or ending the session.
 */
type CallParams = { name: string; arguments?: Record<string, unknown> | undefined };

class RalphServer extends Server {
  /** Answers a plain tools/call synchronously (createMcpServer sets it when every call of the session is). */
  callNow: ((params: CallParams) => CallToolResult) | undefined;

  constructor(
    info: ConstructorParameters<typeof Server>[0],
    options: ConstructorParameters<typeof Server>[1],
    private readonly log: Logger,
  ) {
    super(info, options);
  }

  // Runs from Server's own constructor too (initialize, ping): it must not read instance fields.
  // biome-ignore lint/suspicious/noExplicitAny: overrides the SDK's generic signature, whose types it cannot name
  override setRequestHandler(schema: any, handler: any): void {
    const method: unknown = schema?.shape?.method?.value;
    if (typeof method !== 'string' || typeof schema.safeParse !== 'function') {
      super.setRequestHandler(schema, handler);
      return;
    }
    // The SDK parses with the schema it is given before calling the handler, and turns a failure into
    // -32603; give it a schema that only checks the method, and check the params here.
    const serving = SERVING_METHODS.has(method);
    const checked = (request: unknown, extra: unknown) => {
      if (serving) startServing();
      if (method === 'tools/call' && isPlainToolCall(request)) return handler(request, extra);
      const parsed = schema.safeParse(request) as { success: boolean; data?: { params?: object }; error?: z.ZodError };
      if (!parsed.success) throw invalidParams(method, parsed.error!);
      // zod's record() rebuilds tools/call arguments key by key and loses a "__proto__" key on the
      // way: hand the tool its arguments exactly as sent, so its strict schema refuses that key too.
      const sent =
        method === 'tools/call' ? (request as { params?: { arguments?: unknown } }).params?.arguments : undefined;
      return handler(
        sent === undefined ? parsed.data : { ...parsed.data, params: { ...parsed.data?.params, arguments: sent } },
        extra,
      );
    };
    const methodOnly = z.looseObject({ method: z.literal(method) });
    // Server wraps a tools/call handler to parse the request a second time and to re-validate every
    // result against CallToolResultSchema (a deep copy per call). Ours are checked above, and our
    // results come only from okResult/errorResult, so register with Protocol's plain version.
    if (method === 'tools/call') PROTOCOL_SET_REQUEST_HANDLER.call(this, methodOnly, checked);
    else super.setRequestHandler(methodOnly, checked);
  }

  override async connect(transport: Transport): Promise<void> {
    const stdio = transport instanceof StdioServerTransport;
    if (stdio) {
      guardStdioTransport(transport, this.log);
      shareDrainWaits(transport);
    }
    await super.connect(transport);
    if (stdio) this.answerToolCallsNow(transport);
  }

  /**
   * The stdio fast path: a plain tools/call (what isPlainToolCall accepts: a name and plain arguments,
   * no _meta, no task) after initialize is answered here, synchronously, with the response the SDK's
   * Protocol would send for it, byte for byte, minus its per-request machinery (an AbortController, a
   * chain of promises, an `extra` of closures): about a fifth of a get_task's server time. Our tool
   * calls are synchronous SQLite work that cannot be cancelled half-way, so there is nothing for that
   * machinery to do; the answer may overtake an earlier, asynchronous request's, as JSON-RPC allows.
   * Anything else, and every message before initialize, goes to the SDK.
   */
  private answerToolCallsNow(transport: Transport): void {
    const sdk = transport.onmessage;
    if (!sdk || !this.callNow) return;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: unknown; id?: unknown };
      if (
        m.method !== 'tools/call' ||
        (typeof m.id !== 'number' && typeof m.id !== 'string') ||
        !this.callNow ||
        this.getClientVersion() === undefined ||
        !isPlainToolCall(message)
      ) {
        sdk(message, extra);
        return;
      }
      const id = m.id;
      let response: JSONRPCMessage;
      try {
        response = {
          result: this.callNow((message as unknown as { params: CallParams }).params),
          jsonrpc: '2.0',
          id,
        } as JSONRPCMessage;
      } catch (err) {
        const e = err as { code?: unknown; message?: string; data?: unknown };
        response = {
          jsonrpc: '2.0',
          id,
          error: {
            code: Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError,
            message: e.message ?? 'Internal error',
            ...(e.data !== undefined && { data: e.data }),
          },
        } as JSONRPCMessage;
      }
      transport
        .send(response)
        .catch((err: unknown) => this.onerror?.(new Error(`Failed to send response: ${String(err)}`)));
    };
  }
}

/** Requests that work on the project: the first one puts V8 back to its serving defaults (src/startup/v8Flags.ts). */
const SERVING_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'resources/list',
  'resources/read',
  'prompts/get',
  'completion/complete',
]);
const PROTOCOL_SET_REQUEST_HANDLER = Object.getPrototypeOf(Server.prototype)
  .setRequestHandler as Server['setRequestHandler'];

/**
 * tools/call params with only a string name and plain-object (or no) arguments: what
 * CallToolRequestSchema accepts for them, checked without zod's copy. Anything else (`_meta`, `task`,
 * a wrong type) goes through the schema and its messages.
 */
export function isPlainToolCall(request: unknown): boolean {
  const params = (request as { params?: unknown }).params;
  if (!isPlainObject(params)) return false;
  for (const k in params) if (k !== 'name' && k !== 'arguments') return false;
  return typeof params.name === 'string' && (params.arguments === undefined || isPlainObject(params.arguments));
}

function invalidParams(method: string, error: z.ZodError): Error {
  const parts = error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'request'}: ${i.message}`);
  return Object.assign(new Error(`Invalid params for ${method}: ${parts.join('; ')}`), {
    code: ErrorCode.InvalidParams,
  });
}

/**
 * The JSON-RPC error for a tool this session does not have — hidden or never existing, the same.
 * (A plain Error carrying `code`: McpError would prefix "MCP error -32602:" to the wire message.)
 */
function unknownTool(name: string): Error {
  return Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
}
