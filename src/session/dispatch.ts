import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SESSION_HOOKS } from '../registry/sessionHooks.js';
import {
  applySessionPatch,
  patchedSession,
  writerOf,
  type SessionPatch,
  type SignalForwarder,
  type ToolContext,
} from '../toolkit/context.js';
import type { AnyTool } from '../toolkit/tool.js';
import type { SessionTool } from './plan.js';
import { applyScope } from './scope.js';
import { argumentError, errorResult, okResult, toToolError } from './toolResult.js';

/** The arguments valid for this session's schema (scope not applied yet). */
function parsedArgs(tool: SessionTool, rawArgs: Record<string, unknown>): Record<string, unknown> {
  const parsed = tool.input.safeParse(rawArgs);
  if (!parsed.success) throw argumentError(parsed.error, Object.keys(tool.input.shape));
  return parsed.data as Record<string, unknown>;
}

/**
 * One tool call: arguments validated against the session's schema, the session's scope applied, and
 * for a writing tool one IMMEDIATE transaction holding the call and its audit row. What the call does to
 * the session (a claim binds a task) happens only once that transaction has committed.
 */
export function callTool(tool: SessionTool, rawArgs: Record<string, unknown>, ctx: ToolContext): CallToolResult {
  const { def } = tool;
  SESSION_HOOKS.beforeCall(ctx);
  try {
    const parsed = parsedArgs(tool, rawArgs);
    if (def.annotations.readOnlyHint) return okResult(readTool(tool, parsed, ctx));
    if (def.category === 'state') {
      // State files are not in the database: never wait on its write lock for them. Their audit row
      // is best-effort, after the append (a file append cannot be rolled back with a transaction).
      const out = def.handler(applyScope(tool, parsed, ctx), ctx) as Record<string, unknown>;
      recordBestEffort(ctx, def.name, rawArgs, 'ok');
      return okResult(out);
    }
    ctx.store.ensureOwnTables();
    const patches: SessionPatch[] = [];
    const inWrite: ToolContext = { ...ctx, onCommit: (patch) => patches.push(patch) };
    const out = ctx.store.write(() => {
      const args = applyScope(tool, parsed, inWrite);
      SESSION_HOOKS.beforeWrite(inWrite, def.name, args);
      const result = def.handler(args, inWrite) as Record<string, unknown>;
      // The audit row names the session as the call leaves it (a claim's row names the claimed task).
      ctx.store.audit.recordCall(
        writerOf(patchedSession(ctx.session, patches)),
        def.name,
        rawArgs,
        'ok',
        ctx.session.taskId,
      );
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

/** A reading tool's answer, from one snapshot (store.read): a task's view, a page and its count agree. */
function readTool(tool: SessionTool, parsed: Record<string, unknown>, ctx: ToolContext): Record<string, unknown> {
  return asReading(
    tool.def,
    ctx,
    () => tool.def.handler(applyScope(tool, parsed, ctx), ctx) as Record<string, unknown>,
  );
}

/**
 * Runs a reading tool's handler as calls run it: in one snapshot, unless it brings an index up to date
 * first, or reads only a state file (not the database, which may even be closed then).
 */
export function asReading<T>(def: Pick<AnyTool, 'updatesIndex' | 'category'>, ctx: ToolContext, run: () => T): T {
  return def.updatesIndex || def.category === 'state' ? run() : ctx.store.read(run);
}

/**
 * A signal verb in a session whose signals Ralph's app records: the same validation and scope as
 * callTool, then the tool's `forwarded` (one request to Ralph's API); nothing is written here.
 */
export async function callForwarded(
  tool: SessionTool,
  rawArgs: Record<string, unknown>,
  ctx: ToolContext,
  forward: SignalForwarder,
): Promise<CallToolResult> {
  const { def } = tool;
  try {
    const args = applyScope(tool, parsedArgs(tool, rawArgs), ctx);
    return okResult((await def.forwarded!(args, ctx, forward)) as Record<string, unknown>);
  } catch (err) {
    const te = toToolError(err);
    if (te.code === 'internal') ctx.log.error({ err, tool: def.name }, 'tool failed');
    else ctx.log.info({ tool: def.name, outcome: te.code }, 'call refused');
    return errorResult(te);
  }
}

/** Records a call outside a tool's own transaction: failing to record must not change the answer. */
export function recordBestEffort(ctx: ToolContext, tool: string, args: unknown, outcome: string): void {
  if (ctx.forward) return; // Ralph's app is the only writer of a forwarding session
  try {
    ctx.store.ensureOwnTables();
    ctx.store.write(() => ctx.store.audit.recordCall(writerOf(ctx.session), tool, args, outcome));
  } catch (err) {
    ctx.log.warn({ err, tool, outcome }, 'could not record the call in ralph_mcp_audit');
  }
}
