import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Project } from '../../src/domain/project.js';
import { createMcpServer, type McpServerOptions } from '../../src/server/createServer.js';
import { createLogger } from '../../src/server/log.js';
import { openSession, prepareDatabase, type SessionOptions } from '../../src/session/open.js';
import type { SessionPlan } from '../../src/session/plan.js';
import type { Session } from '../../src/session/session.js';
import { GENERATIONS, type Generation } from '../../src/store/records.js';
import type { RalphStore } from '../../src/store/store.js';
import { legacyInvariants, normalizedInvariants } from '../helpers/ralphRead.js';
import { sampleProject } from '../helpers/project.js';

/**
 * The contract suite: one set of tests run against each of Ralph's schema generations, in-process,
 * through a real SDK Client over the SDK's in-memory transport: the very handlers, validation, scope and
 * transactions a launch serves, and the client's own checks of every result against the listed output
 * schema. After every call that succeeds and writes, the database must still satisfy Ralph's own read
 * rules for its generation (test/helpers/ralphRead.ts), so a write that would break Ralph fails its test.
 */

export interface InProcSession {
  project: Project;
  /** The session's own plan: its scope is what calls change. */
  plan: SessionPlan;
  session: Session;
  store: RalphStore;
  client: Client;
  /** A tool call as the client makes it; a hidden or unknown tool rejects (a JSON-RPC error). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The structured result of a call that must succeed; the error of one that must fail. */
  ok<T = any>(name: string, args?: Record<string, unknown>): Promise<T>;
  fail(name: string, args?: Record<string, unknown>): Promise<{ code: string; message: string; details?: any }>;
  toolNames(): Promise<string[]>;
  close(): Promise<void>;
}

const log = createLogger('silent');

/** The SDK client's own JSON Schema validator, each output schema compiled once per test process (not per listing). */
const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, ReturnType<jsonSchemaValidator['getValidator']>>();
const validator: jsonSchemaValidator = {
  getValidator(schema) {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, ajv.getValidator(schema));
    return compiled.get(key) as never;
  },
};

export interface InProcOptions {
  /** Who the client says it is at initialize (results differ for some clients: server/resultCopies.ts). */
  clientInfo?: { name: string; version: string };
  /**
   * Check Ralph's read rules after every write (default). Off for a database a test made odd on
   * purpose (rows Ralph's own code could not read): there the rules fail before any call.
   */
  invariants?: boolean;
  /** What the client declares at initialize (default: nothing), e.g. `{ elicitation: {} }`. */
  capabilities?: ClientCapabilities;
  /** Runs before the client connects, e.g. to add request handlers of its own (elicitation/create). */
  prepareClient?: (client: Client) => void;
  /** The server's own options (how long an ask waits for the person). */
  server?: McpServerOptions;
}

/** A session exactly as `ralph-mcp --project … <flags>` would serve it, without the process. */
export async function openInProc(
  project: Project,
  flags: Omit<SessionOptions, 'project'> = {},
  opts: InProcOptions = {},
): Promise<InProcSession> {
  const { clientInfo = { name: 'contract', version: '0' }, invariants: checked = true } = opts;
  const { store, plan } = openSession({ project: project.root, ...flags });
  prepareDatabase(store, log, plan); // as a launch does, before any call
  const { server, session } = createMcpServer(plan, store, log, undefined, opts.server);
  const [toServer, toClient] = InMemoryTransport.createLinkedPair();
  const client = new Client(clientInfo, {
    jsonSchemaValidator: validator,
    ...(opts.capabilities && { capabilities: opts.capabilities }),
  });
  opts.prepareClient?.(client);
  await Promise.all([server.connect(toServer), client.connect(toClient)]);
  await client.listTools(); // as clients do: the client checks results against the listed output schemas
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> => {
    const tool = session.visibleTool(name);
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (checked && !result.isError && !tool!.def.annotations.readOnlyHint && tool!.def.category !== 'state') {
      const broken = invariantsOf(store.generation)(project.dbPath);
      assert.deepEqual(broken, [], `after ${name} ${JSON.stringify(args)}: Ralph's read rules (${store.generation})`);
    }
    return result;
  };
  return {
    project,
    plan: session.plan,
    session,
    store,
    client,
    call,
    async ok(name, args) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent as any;
    },
    async fail(name, args) {
      const r = await call(name, args);
      if (!r.isError)
        throw new Error(`${name} ${JSON.stringify(args)} should fail: ${JSON.stringify(r.structuredContent)}`);
      return (r.structuredContent as { error: { code: string; message: string } }).error;
    },
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    async close() {
      await client.close();
      store.close();
    },
  };
}

export interface ContractEnv {
  generation: Generation;
  /** A fresh copy of the sample project (scripts/sampleProject.ts) on this generation. */
  sample(): Project;
  /** A session on `project` (default: a fresh sample), closed after the test file. */
  open(flags?: Omit<SessionOptions, 'project'>, project?: Project, opts?: InProcOptions): Promise<InProcSession>;
  /** Ralph's read rules for this generation, as the harness checks them after each write. */
  invariants(project: Project): string[];
}

const invariantsOf = (g: Generation) => (g === 'normalized' ? normalizedInvariants : legacyInvariants);

/** Runs `body` once per generation (or only the ones given), in a describe block named after it. */
export function contract(
  name: string,
  body: (env: ContractEnv) => void,
  generations: readonly Generation[] = GENERATIONS,
): void {
  for (const generation of generations) {
    describe(`${name} [${generation}]`, () => {
      const open: InProcSession[] = [];
      after(async () => {
        for (const s of open) await s.close();
      });
      body({
        generation,
        sample: () => sampleProject(generation),
        invariants: (p) => invariantsOf(generation)(p.dbPath),
        async open(flags = {}, project = sampleProject(generation), opts = {}) {
          const s = await openInProc(project, flags, opts);
          open.push(s);
          return s;
        },
      });
    });
  }
}
