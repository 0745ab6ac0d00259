import { ErrorCode, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { conflict } from '../domain/errors.js';
import { toolByName } from '../registry/registry.js';
import { SESSION_HOOKS } from '../registry/sessionHooks.js';
import { recordAnswer } from '../store/answers.js';
import type { Question } from '../store/records.js';
import type { RalphStore } from '../store/store.js';
import { applyNow, writerOf, type SignalForwarder, type ToolContext } from '../toolkit/context.js';
import { asReading, callForwarded, callTool, recordBestEffort } from './dispatch.js';
import { toolListing } from './listing.js';
import { readOverrides } from './overrides.js';
import type { SessionPlan, SessionTool } from './plan.js';

/** The tools that bind a task to a session, whose discipline's overrides may then remove more tools. */
const CLAIM_TOOLS: ReadonlySet<string> = new Set(['claim_next_task', 'claim_task']);
export const claimsTasks = (toolNames: Iterable<string>): boolean => [...toolNames].some((n) => CLAIM_TOOLS.has(n));

const visibleOnly = (listing: Tool[], removed: ReadonlySet<string>): Tool[] =>
  removed.size === 0 ? listing : listing.filter((t) => !removed.has(t.name));

/** tools/list of a session launched with `plan`, before any call (transport/sdkOnDemand.ts). */
export const launchListing = (plan: SessionPlan): Tool[] =>
  visibleOnly(plan.tools.map(toolListing), plan.scope.removed);

/**
 * One MCP session's behaviour, whatever carries it (stdio, a socket connection, an HTTP session): its
 * listing, calls, reads and end. The server reaches tools only through this; each Session has its own scope.
 */
export class Session {
  readonly plan: SessionPlan;
  readonly ctx: ToolContext;
  private readonly tools: Map<string, SessionTool>;
  private listing: Tool[] | undefined;

  constructor(launched: SessionPlan, store: RalphStore, log: Logger, forward?: SignalForwarder) {
    this.plan = { ...launched, scope: { ...launched.scope, removed: new Set(launched.scope.removed) } };
    this.ctx = toolContext(this.plan, store, log, forward);
    this.tools = new Map(this.plan.tools.map((t) => [t.def.name, t]));
  }

  get store(): RalphStore {
    return this.ctx.store;
  }

  /** Whether a claim can change this session's tools (then it announces tools/list_changed). */
  get mayChangeTools(): boolean {
    return claimsTasks([...this.tools.keys()]);
  }

  /** tools/list: the plan's tools, less what a claim removed since. */
  listTools(): Tool[] {
    this.listing ??= this.plan.tools.map(toolListing);
    return visibleOnly(this.listing, this.ctx.session.removed);
  }

  /** The tool this session may call by that name now; hidden and unknown alike are undefined. */
  visibleTool(name: string): SessionTool | undefined {
    return this.ctx.session.removed.has(name) ? undefined : this.tools.get(name);
  }

  /**
   * tools/call. A tool this session does not have is a JSON-RPC error (thrown), exactly as for a name
   * that never existed; everything else is a tool result, refusals included. Synchronous unless the
   * session forwards its signals to Ralph's app and this is a signal.
   */
  call(name: string, rawArgs: Record<string, unknown> = {}): CallToolResult | Promise<CallToolResult> {
    const { ctx } = this;
    const tool = this.visibleTool(name);
    if (!tool) {
      ctx.log.info({ tool: name, outcome: 'unknown_tool' }, 'call refused');
      recordBestEffort(ctx, name, rawArgs, 'unknown_tool');
      throw unknownTool(name);
    }
    if (ctx.forward && tool.def.forwarded) return callForwarded(tool, rawArgs, ctx, ctx.forward);
    const started = performance.now();
    const result = callTool(tool, rawArgs, ctx);
    const outcome = result.isError ? (result.structuredContent as { error: { code: string } }).error.code : 'ok';
    // debug, not info: a line per call costs more than a primary-key read (writes are in ralph_mcp_audit).
    ctx.log.debug({ tool: name, ms: Math.round((performance.now() - started) * 100) / 100, outcome }, 'call');
    return result;
  }

  /**
   * A reading tool's structured result for a resource or a prompt: the registry's tool (whatever this
   * session lists), run with this session's context, arguments as given.
   */
  read(name: string, args: Record<string, unknown>): unknown {
    const def = toolByName(name);
    if (!def?.annotations.readOnlyHint) throw new Error(`${name} is not a reading tool`);
    return asReading(def, this.ctx, () => def.handler(args, this.ctx));
  }

  /**
   * A person's answer to a question, given through this session's client (server/askInClient.ts): the
   * write `ralph-mcp answer` makes, in one transaction with this session's audit row (outcome
   * `answered`). The answer was checked by domain/answers.ts; undefined when no question has that id.
   */
  recordAnswer(questionId: number, answer: string): Question | undefined {
    const { ctx } = this;
    SESSION_HOOKS.beforeCall(ctx); // the person's answer is the session at work: its claim's lease renews
    ctx.store.ensureOwnTables();
    return recordAnswer(ctx.store, questionId, answer, (q) =>
      ctx.store.audit.recordCall(writerOf(ctx.session), 'ask', { question_id: q.id, answer }, 'answered', q.task_id),
    );
  }

  /** The session ends (connection closed, process ending): the task it claimed goes back. */
  close(why: string): void {
    SESSION_HOOKS.onClose(this.ctx, why);
  }
}

/** What every handler of a session gets. */
function toolContext(plan: SessionPlan, store: RalphStore, log: Logger, forward?: SignalForwarder): ToolContext {
  return {
    store,
    project: plan.project,
    session: plan.scope,
    log,
    forward,
    onCommit: applyNow(plan.scope),
    disciplineOverrides(discipline) {
      const row = store.disciplines.toolOverrides(discipline);
      if (!row) return [];
      try {
        return readOverrides(row.name, row.raw, store.disciplines.overridesLocation() ?? undefined);
      } catch (err) {
        throw conflict(
          `${(err as Error).message}; fix them first (ralph-mcp doctor lists every discipline's overrides)`,
        );
      }
    },
  };
}

/**
 * The JSON-RPC error for a tool this session does not have — hidden or never existing, the same.
 * (A plain Error carrying `code`: McpError would prefix "MCP error -32602:" to the wire message.)
 */
function unknownTool(name: string): Error {
  return Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
}
