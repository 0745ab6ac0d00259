import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { Session } from '../session/session.js';
import type { SessionPlan } from '../session/plan.js';
import type { RalphStore } from '../store/store.js';
import type { SignalForwarder } from '../toolkit/context.js';
import { askInClient, askSeconds, asksPerson, askTimeoutMs } from './askInClient.js';
import { ClientLog } from './clientLog.js';
import { formValidator } from './formValidator.js';
import { handle, methodOnly } from './handle.js';
import { serverIdentity } from './identity.js';
import { withClientSink } from './log.js';
import { projectWork } from './projectWork.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { catchUpBetweenRequests } from './searchCatchUp.js';
import { SEARCH_USERS } from '../session/open.js';
import { resultCopiesFor, resultTextMode, type ResultCopies } from './resultCopies.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** An MCP server for one session, and that session. */
export interface McpSession {
  server: Server;
  session: Session;
  /**
   * tools/call as this server answers it (what its handler returns), for transport/directCalls.ts;
   * undefined when calls may be asynchronous (signals forwarded to Ralph's app).
   */
  answerCall?: (params: CallToolRequest['params']) => CallToolResult;
  /** Whether a call must go the SDK's way all the same: it waits on the client (server/askInClient.ts). */
  viaSdk?: (params: CallToolRequest['params']) => boolean;
}

export interface McpServerOptions {
  /** How long a blocking ask waits for the person in the client, in ms (else RALPH_MCP_ASK_SECONDS's). */
  askTimeoutMs?: number;
  /** Whether the search index catches up between requests (server/searchCatchUp.ts); default on. */
  searchCatchUp?: boolean;
}

/**
 * The MCP server for one session: the SDK's Server with a handler per method. Only the plan's tools
 * exist here, so a hidden tool is refused exactly as an unknown name is.
 */
export function createMcpServer(
  plan: SessionPlan,
  store: RalphStore,
  rootLog: Logger,
  forward?: SignalForwarder,
  opts: McpServerOptions = {},
): McpSession {
  const { info, capabilities, instructions } = serverIdentity(plan);
  const server = new Server(info, {
    capabilities,
    instructions,
    jsonSchemaValidator: formValidator, // checks a person's answer to an ask (server/askInClient.ts)
  });
  // A protocol-level problem (a response to nothing, a failed send) is logged; the session goes on.
  server.onerror = (err) => rootLog.warn({ err }, 'protocol error');
  // The session's log lines also reach its client once it sets a level (logging/setLevel).
  const clientLog = new ClientLog(server);
  const session = new Session(plan, store, withClientSink(rootLog, clientLog.sink), forward);
  const copies = resultCopiesOf(server);
  const askMs = opts.askTimeoutMs ?? askTimeoutMs(askSeconds(), plan.scope.leaseMs);
  const viaSdk = (params: CallToolRequest['params']) => asksPerson(server, session, askMs, params);

  handle(server, ListToolsRequestSchema, () => ({ tools: session.listTools() }));
  const answerCall = (
    params: CallToolRequest['params'],
    notify: Extra['sendNotification'],
    extra?: Extra,
  ): CallToolResult | Promise<CallToolResult> => {
    const { name, arguments: args } = params;
    projectWork();
    clientLog.current = notify;
    try {
      const hidden = session.ctx.session.removed.size;
      const asking = extra !== undefined && viaSdk(params); // decided before the call, as directCalls decides
      const result = session.call(name, args);
      if (result instanceof Promise) return result;
      if (asking && !result.isError) {
        // The question has committed; the person's answer comes back (or not) in its own time.
        const request = { timeout: askMs, signal: extra.signal, relatedRequestId: extra.requestId };
        return askInClient(server, session, result, request).then(shaped);
      }
      shaped(result);
      // What this call left of the search index's queue is caught up between requests, a slice at a time.
      if (opts.searchCatchUp !== false && SEARCH_USERS.has(name)) catchUpBetweenRequests(store, rootLog);
      if (session.ctx.session.removed.size !== hidden)
        server.sendToolListChanged().catch((err: unknown) => rootLog.warn({ err }, 'could not send list_changed'));
      if (result.isError) {
        const { code, message } = (result.structuredContent as { error: { code: string; message: string } }).error;
        clientLog.send('notice', { message: 'call refused', tool: name, outcome: code, reason: message });
      }
      return result;
    } finally {
      clientLog.current = undefined;
    }
  };
  // Checked by the SDK's own tools/call handling (CallToolRequestSchema, then the result's schema);
  // the arguments reach the tool as sent (zod's copy of a record would drop a "__proto__" key).
  server.setRequestHandler(methodOnly('tools/call'), ((request: CallToolRequest, extra: Extra) =>
    answerCall(request.params, extra.sendNotification, extra)) as never);
  registerResources(server, session, projectWork, rootLog);
  registerPrompts(server, session, projectWork);
  // A connection (socket, HTTP session) that closes gives back the task it claimed; stdio: serve.ts
  // closes the session before closing the database.
  const closed = server.onclose; // resources.ts's: subscriptions end too
  server.onclose = () => {
    session.close('connection closed');
    closed?.();
  };
  const notify = (n: ServerNotification) => server.notification(n);
  if (forward) return { server, session };
  return { server, session, answerCall: (params) => answerCall(params, notify) as CallToolResult, viaSdk };

  /** A successful result carries the copies this client gets (server/resultCopies.ts). */
  function shaped(result: CallToolResult): CallToolResult {
    if (!result.isError && copies() === 'structured') result.content = [];
    return result;
  }
}

/**
 * Whether results carry the structured copy alone or the text copy too: decided once the client has
 * said who it is (initialize), then kept.
 */
function resultCopiesOf(server: Server): () => ResultCopies {
  const textMode = resultTextMode();
  let decided: ResultCopies | undefined;
  return () => {
    if (decided !== undefined) return decided;
    const client = server.getClientVersion();
    const copies = resultCopiesFor(client, textMode);
    if (client) decided = copies;
    return copies;
  };
}
