import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpSession } from '../server/createServer.js';
import { serverIdentity } from '../server/identity.js';
import { projectWork } from '../server/projectWork.js';
import { promptsFor } from '../server/prompts.js';
import { listPage, TEMPLATES } from '../server/resources.js';
import type { SessionPlan } from '../session/plan.js';
import type { RalphStore } from '../store/store.js';
import { launchListing } from '../session/session.js';
import { isPlainNotification, isPlainRequest } from './jsonRpcLine.js';
import type { LineTransport } from './lineTransport.js';
import { isPlainInitialize } from './plainInitialize.js';

/**
 * A stdio session's start without the SDK: until a request needs it, what a client asks when it connects
 * (initialize, ping, and the lists: tools, prompts, resources and their templates) is answered here with
 * the bytes the SDK's Server gives (test/e2e/protocol.test.ts), by the handlers' own functions, and
 * notifications/initialized is taken note of. The first message of any other kind (a tool call, a read,
 * anything unusual) makes the Server: it is connected, told the initialize and notifications/initialized
 * it missed (its own answer to that initialize, already given, is dropped), and from then on gets every
 * message, the held ones first, in order.
 *
 * Why: making the SDK's Server and its zod schemas, and parsing the first requests with them, was about
 * a third of a cold start to the tools/list answer (docs/startup-and-serving.md). The Server is made after
 * the start-up requests instead: in the idle time that follows them, or at the first call if it comes sooner.
 */

/**
 * How long after the last request answered here the Server is made anyway: in the idle time between a
 * client's start-up requests (sent together) and its first call (after the model's turn, seconds later),
 * so that call does not wait 20-40 ms for it.
 */
const IDLE_START_MS = 100;

/** The id the SDK is told the initialize under: nothing a client sent, and its answer is not sent on. */
const REPLAY_ID = 'ralph-mcp:initialize-replayed';

/**
 * Makes the session's server and connects it to the transport it is given; undefined when the session
 * has ended meanwhile (then nothing more is served). Called once.
 */
type MakeServer = (transport: Transport) => Promise<McpSession | undefined>;

/** Serves `line` as described above (the caller starts it). */
export function serveOnDemand(
  line: LineTransport,
  plan: SessionPlan,
  store: RalphStore,
  log: Logger,
  makeServer: MakeServer,
): void {
  const front = new Front(line, plan, store, log, makeServer);
  line.onmessage = (message) => front.onMessage(message);
}

/** What the SDK's Server is connected to: the line transport, already reading. */
class HandedOver implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Settles the replayed initialize once the SDK has answered it. */
  replayed?: (answer: JSONRPCMessage) => void;

  constructor(private readonly line: LineTransport) {}

  async start(): Promise<void> {}

  send(message: JSONRPCMessage): Promise<void> {
    if ((message as { id?: unknown }).id === REPLAY_ID && !('method' in message)) {
      this.replayed?.(message);
      return Promise.resolve();
    }
    return this.line.send(message);
  }

  close(): Promise<void> {
    return this.line.close();
  }
}

class Front {
  private state: 'front' | 'starting' | 'sdk' = 'front';
  /** What the Server is told when it is made: the initialize answered here, notifications/initialized. */
  private readonly missed: JSONRPCMessage[] = [];
  /** Messages read while the Server is being made. */
  private held: JSONRPCMessage[] = [];
  private idle?: NodeJS.Timeout;
  private readonly sdk: HandedOver;

  constructor(
    private readonly line: LineTransport,
    private readonly plan: SessionPlan,
    private readonly store: RalphStore,
    private readonly log: Logger,
    private readonly makeServer: MakeServer,
  ) {
    this.sdk = new HandedOver(line);
    // The Server's hooks run after the ones set before it (serve.ts's), as when it connects to the line itself.
    const before = { close: line.onclose, error: line.onerror };
    line.onclose = () => {
      before.close?.();
      this.sdk.onclose?.();
    };
    line.onerror = (error) => {
      before.error?.(error);
      // As the Server reports one (createServer.ts) when there is none yet.
      if (this.sdk.onerror) this.sdk.onerror(error);
      else log.warn({ err: error }, 'protocol error');
    };
  }

  onMessage(message: JSONRPCMessage): void {
    if (this.state === 'sdk') this.sdk.onmessage?.(message);
    else if (this.state === 'starting' || !this.answered(message)) {
      this.held.push(message);
      if (this.state === 'front') void this.start();
    } else this.startWhenIdle();
  }

  private startWhenIdle(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.state === 'front') void this.start();
    }, IDLE_START_MS);
    this.idle.unref();
  }

  /** Answers `message` as the SDK's Server would, or says it cannot. */
  private answered(message: JSONRPCMessage): boolean {
    const m = message as { id?: string | number; method?: string; params?: Record<string, unknown> };
    if (m.method === 'notifications/initialized' && isPlainNotification(message)) {
      this.missed.push(message);
      return true;
    }
    if (m.id === undefined || !isPlainRequest(message)) return false;
    const result = this.result(m.method!, message, m.params);
    if (result === undefined) return false;
    this.line.send({ result, jsonrpc: '2.0', id: m.id } as JSONRPCMessage).catch((err: unknown) => {
      this.log.warn({ err }, 'protocol error');
    });
    return true;
  }

  /** The SDK's Server's result for a plain request; undefined for one it alone answers. */
  private result(method: string, message: JSONRPCMessage, params: Record<string, unknown> | undefined): unknown {
    if (method === 'initialize' && isPlainInitialize(message) && !this.missed.some(isRequest)) {
      this.missed.push(message);
      return initializeResult(this.plan, params!.protocolVersion as string);
    }
    if (method === 'ping') return {};
    if (!plainListParams(params)) return undefined;
    if (method === 'tools/list') return { tools: launchListing(this.plan) };
    if (method === 'prompts/list') return { prompts: promptsFor(this.plan) };
    if (method === 'resources/templates/list') return { resourceTemplates: TEMPLATES };
    if (method === 'resources/list') {
      projectWork(); // as the Server's handler does (server/resources.ts)
      try {
        return listPage(this.store, params?.cursor as string | undefined);
      } catch {
        return undefined; // a cursor it refuses, or a read that failed: the SDK words it
      }
    }
    return undefined;
  }

  /** Makes the Server, tells it what it missed, then hands it the held messages and every later one. */
  private async start(): Promise<void> {
    clearTimeout(this.idle);
    this.state = 'starting';
    try {
      if (!(await this.makeServer(this.sdk))) return;
      for (const message of this.missed) await this.tell(message);
    } catch (err) {
      // Nothing can serve this session: end it as a transport that fails ends it.
      this.log.error({ err }, 'could not start the MCP server');
      void this.line.close();
      return;
    }
    this.state = 'sdk';
    const held = this.held;
    this.held = [];
    for (const message of held) this.sdk.onmessage?.(message);
  }

  /** A message the Server missed; a request's answer (already given) is dropped, and waited for. */
  private tell(message: JSONRPCMessage): Promise<void> {
    if (!isRequest(message)) {
      this.sdk.onmessage?.(message);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.sdk.replayed = (answer) => {
        this.sdk.replayed = undefined;
        if ('error' in answer) this.log.warn({ answer }, 'the SDK refused an initialize answered before it started');
        resolve();
      };
      this.sdk.onmessage?.({ ...message, id: REPLAY_ID } as JSONRPCMessage);
    });
  }
}

const isRequest = (m: JSONRPCMessage): boolean => 'id' in m && 'method' in m;

/** A list's params as its paginated request schema takes them: none, or a cursor. */
function plainListParams(params: Record<string, unknown> | undefined): boolean {
  if (params === undefined) return true;
  for (const k in params) if (k !== 'cursor') return false;
  return params.cursor === undefined || typeof params.cursor === 'string';
}

/** The SDK's Server's answer to initialize (its _oninitialize), for this session. */
function initializeResult(plan: SessionPlan, requested: string) {
  const { info, capabilities, instructions } = serverIdentity(plan);
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
    capabilities,
    serverInfo: info,
    ...(instructions && { instructions }),
  };
}
