import { z } from 'zod';
import { conflict } from '../domain/errors.js';
import { once, READ, UPDATE, defineTool } from '../toolkit/tool.js';
import { applySessionPatch, writerOf, type SessionScope, type ToolContext } from '../toolkit/context.js';
import { isoTime } from '../domain/time.js';
import type { Claim } from '../store/records.js';
import type { RalphStore } from '../store/store.js';
import { sessionNote } from './comments.js';
import { text, taskId } from './fields.js';
import { requireTask, requireTaskHead, sessionTask } from './lookups.js';
import { CommentOut, TaskOut } from './shapes.js';
import { PAGES } from '../domain/limits.js';

/**
 * Claims with leases, in our own ralph_mcp_claims: Ralph's agent_sessions row has one task_id and is
 * written once as a finished record, while a worker claims many tasks in turn and its lease keeps moving.
 * A task is held only while it is in_progress and has a claim row: one set in_progress by a person or by
 * Ralph has none, and no pool takes it over (only the session launched for it, at its first write).
 * The rules, and why a --task session leases at its first write: docs/sessions.md, Leases.
 */

/** Who holds a task, as get_task and list_tasks show it. */
export const HolderOut = once(() => z.object({ session_id: z.string(), since: z.string(), lease_until: z.string() }));
export type Holder = z.infer<ReturnType<typeof HolderOut>>;

export const holder = (c: Claim | undefined, status: string): Holder | null =>
  c && status === 'in_progress' ? { session_id: c.session_id, since: c.claimed_at, lease_until: c.lease_until } : null;

export const holderOf = (store: RalphStore, id: number, status: string): Holder | null =>
  status === 'in_progress' ? holder(store.claims.claimOf(id), status) : null;

/**
 * Claims whose lease ran out before `now` on tasks still in_progress, in the filters, longest expired
 * first: what claims take over, in the order they take them. `finished` sees each stale row of a task
 * that is no longer in_progress (a claim, inside its write, drops those; the next_tasks preview reads only).
 */
export function staleClaims(
  store: RalphStore,
  now: string,
  q: { discipline?: string | undefined; feature?: string | undefined },
  limit: number,
  finished?: (c: Claim) => void,
): Claim[] {
  const out: Claim[] = [];
  for (const c of store.claims.expiredClaims(now, 50)) {
    const head = store.tasks.taskHead(c.task_id);
    if (head?.status !== 'in_progress') {
      finished?.(c);
      continue;
    }
    if (
      (q.discipline === undefined || head.discipline === q.discipline) &&
      (q.feature === undefined || head.feature === q.feature)
    )
      out.push(c);
    if (out.length >= limit) break;
  }
  return out;
}

/** What claiming one task finds, by the task's status and its claim row. */
export type ClaimFinding =
  /** Pending, every dependency done: the claim sets it in_progress. */
  | { kind: 'ready' }
  /** In_progress under another session whose lease ran out: the claim takes it over. */
  | { kind: 'stale'; claim: Claim }
  /** In_progress without a claim (a person or Ralph set it): only the session launched for it takes it. */
  | { kind: 'unleased' }
  | { kind: 'mine'; claim: Claim }
  /** Another session's lease still runs: refused. */
  | { kind: 'held'; claim: Claim }
  | { kind: 'waits'; unfinished: { id: number; status: string }[] }
  /** draft, blocked, done, skipped: nothing to claim. */
  | { kind: 'closed'; status: string };

/** Unfinished dependencies a refusal names (the rest are cut). */
export const UNFINISHED_NAMED = 20;

/** Unfinished dependencies as a refusal names them: `#3 (pending), #5 (blocked)`, then `…` past the first 20. */
export const namedUnfinished = (deps: readonly { id: number; status: string }[]): string =>
  deps
    .slice(0, UNFINISHED_NAMED)
    .map((d) => `#${d.id} (${d.status})`)
    .join(', ') + (deps.length > UNFINISHED_NAMED ? ', …' : '');

export function findClaim(ctx: ToolContext, id: number, status: string, now: string): ClaimFinding {
  if (status === 'pending') {
    const unfinished = ctx.store.tasks.unfinishedDependencies(id, UNFINISHED_NAMED + 1);
    return unfinished.length > 0 ? { kind: 'waits', unfinished } : { kind: 'ready' };
  }
  if (status !== 'in_progress') return { kind: 'closed', status };
  const c = ctx.store.claims.claimOf(id);
  if (!c) return { kind: 'unleased' };
  if (isOwnClaim(ctx.session, c)) return { kind: 'mine', claim: c };
  return c.lease_until < now ? { kind: 'stale', claim: c } : { kind: 'held', claim: c };
}

/** The refusal of a task another session's live lease holds: who, and when the lease ends. */
export const heldConflict = (id: number, c: Claim, s?: SessionScope) =>
  conflict(
    `task ${id} is held by session ${c.session_id} until ${c.lease_until} (its lease, renewed while it works${
      c.session_id === s?.sessionId ? '; taken by another process launched with this session id' : ''
    }); claim another task, or retry after then`,
    { held_by: holder(c, 'in_progress') },
  );

export type TookOver = { session_id: string; claimed_at: string; lease_until: string };

/**
 * Takes a task for this session, its lease starting `now`: a ready one goes in_progress; one whose lease
 * ran out is taken over (a comment and an audit row of `tool` say from whom). Inside the claim's write.
 */
export function takeTask(
  ctx: ToolContext,
  id: number,
  found: Extract<ClaimFinding, { kind: 'ready' | 'stale' | 'unleased' }>,
  tool: string,
  now: number,
): TookOver | undefined {
  let tookOver: TookOver | undefined;
  if (found.kind === 'stale') {
    const { session_id, claimed_at, lease_until } = found.claim;
    tookOver = { session_id, claimed_at, lease_until };
    sessionNote(ctx, id, `Taken over from session ${session_id} (claimed ${claimed_at}, lease ran out ${lease_until})`);
    // Its own audit row, under the task: the call's row follows it.
    ctx.store.audit.recordCall({ ...writerOf(ctx.session), taskId: id }, tool, { took_over: tookOver }, 'took_over');
  } else if (found.kind === 'ready') ctx.store.tasks.setTaskStatus(id, 'in_progress');
  recordClaim(ctx, id, now);
  return tookOver;
}

/** Writes that end the work (or are a claim themselves): taking a lease first would end with them. */
const TAKES_NO_LEASE = new Set(['release_task', 'report_blocker', 'claim_task']);

/**
 * A session launched for its task (--task N, in a recipe that leases) takes the lease on N at its first
 * write (again only after it released it), as claim_task would: a write is refused only while another
 * session's lease runs. A task nothing can claim (blocked, done, waiting on dependencies) is written
 * unleased, and so is a write that ends the work (a status other than in_progress, a release, a blocker):
 * the lease would end with it. An abort neither waits on a lease nor takes one.
 * Once another session holds the task (it took it over), every write is refused. Inside the write, after
 * scope, before the tool.
 */
export function leaseLaunchedTask(ctx: ToolContext, tool: string, args: Record<string, unknown>): void {
  const s = ctx.session;
  if (!s.leasesTask || s.claimed || s.taskId === null || ctx.forward || tool === 'signal_abort') return;
  const id = s.taskId;
  const head = ctx.store.tasks.taskHead(id);
  if (!head) return;
  const now = Date.now();
  const found = findClaim(ctx, id, head.status, isoTime(now));
  if (found.kind === 'held') throw heldConflict(id, found.claim, s);
  if (s.leased) return; // taken once; a write after the task went back to pending takes nothing
  if (TAKES_NO_LEASE.has(tool) || (typeof args.status === 'string' && args.status !== 'in_progress')) return;
  if (found.kind === 'mine') return;
  if (found.kind === 'waits' || found.kind === 'closed') return;
  takeTask(ctx, id, found, 'claim_task', now);
  ctx.store.audit.recordCall({ ...writerOf(s), taskId: id }, 'claim_task', { id, first_write: tool }, 'ok');
  ctx.onCommit({ leased: true });
}

/**
 * A leasing session (a claiming one, or one launched for its task in a recipe that leases) that sets its
 * own task in_progress again takes the lease in that write: the task left in_progress (by anyone's hand),
 * which ended its lease, and an in_progress task under such a session always has its claim row. Inside
 * the status change's write.
 */
export function leaseOnResume(ctx: ToolContext, id: number): void {
  const s = ctx.session;
  if (ctx.forward || id !== s.taskId || !(s.claimed || s.leasesTask)) return;
  recordClaim(ctx, id);
  if (!s.leased) ctx.onCommit({ leased: true });
}

/** When each session last wrote its lease (module state, not session state: it changes no scope). */
const lastRenewed = new WeakMap<SessionScope, number>();

/**
 * The claimed_at of the claim each session last recorded: with the session id, what makes a claim row
 * this session's. Two processes launched with one --session-id so hold distinct leases: neither renews,
 * drops or writes under the other's (docs/sessions.md, Leases).
 */
const leaseSince = new WeakMap<SessionScope, string>();

/** Whether a claim row is this session's own (its id, and the claim it recorded itself). */
export const isOwnClaim = (s: SessionScope, c: Claim): boolean =>
  c.session_id === s.sessionId && leaseSince.get(s) === c.claimed_at;

/** Records this session's claim on a task, its lease starting now. Inside the claim's write. */
export function recordClaim(ctx: ToolContext, taskIdValue: number, now = Date.now()): Claim {
  const claim = {
    task_id: taskIdValue,
    session_id: ctx.session.sessionId,
    claimed_at: isoTime(now),
    lease_until: isoTime(now + ctx.session.leaseMs),
  };
  ctx.store.claims.putClaim(claim);
  lastRenewed.set(ctx.session, now);
  leaseSince.set(ctx.session, claim.claimed_at);
  return claim;
}

/** How often the holder's calls write a renewal: a third of the lease, at most once a minute. */
export const renewEvery = (leaseMs: number): number => Math.min(60_000, Math.floor(leaseMs / 3));

/**
 * Renews the session's lease on its claimed task, at most once per renewEvery; best effort (a busy
 * database only makes this call skip it). Not inside a tool's transaction: any call renews, reads too.
 */
export function renewLease(ctx: ToolContext): void {
  const s = ctx.session;
  if (!s.leased || s.taskId === null || ctx.forward) return;
  const now = Date.now();
  const last = lastRenewed.get(s);
  if (last !== undefined && now - last < renewEvery(s.leaseMs)) return;
  const since = leaseSince.get(s);
  if (since === undefined) return;
  lastRenewed.set(s, now);
  try {
    ctx.store.ensureOwnTables();
    const claim = { task_id: s.taskId, session_id: s.sessionId, claimed_at: since };
    ctx.store.write(() => ctx.store.claims.renewLease(claim, isoTime(now + s.leaseMs)));
  } catch (err) {
    ctx.log.warn({ err, session_id: s.sessionId }, 'could not renew the lease');
  }
}

/** A claimed session's task taken over by another session (its lease ran out): writes to it are refused. */
export function takenOverFrom(ctx: ToolContext, id: number): Claim | undefined {
  const s = ctx.session;
  if (!s.leased || s.taskId !== id) return undefined;
  const c = ctx.store.claims.claimOf(id);
  return c && !isOwnClaim(s, c) ? c : undefined;
}

/** Gives a task back: pending, its claim dropped, a comment saying why. Inside a write. */
function giveBack(ctx: ToolContext, id: number, why: string) {
  ctx.store.tasks.setTaskStatus(id, 'pending');
  ctx.store.claims.dropClaim(id);
  return sessionNote(ctx, id, `Released: ${why}`);
}

// ---- release_task ---------------------------------------------------------------------------

export const releaseTask = defineTool({
  name: 'release_task',
  title: 'Release task',
  category: 'tasks',
  description: 'Give your task back (pending, reason kept as a comment) when you cannot finish it.',
  input: () => z.strictObject({ reason: text(2000) }),
  output: () => z.object({ task: TaskOut(), comment: CommentOut() }),
  annotations: UPDATE,
  handler(args, ctx) {
    const id = sessionTask(ctx, 'release_task');
    const head = requireTaskHead(ctx.store, id);
    if (head.status !== 'in_progress')
      throw conflict(`task ${id} is ${head.status}; only an in_progress task can be released`);
    const other = takenOverFrom(ctx, id);
    if (other)
      throw conflict(
        `task ${id} was taken over by session ${other.session_id} after your lease ran out; it is not yours to release`,
      );
    const comment = giveBack(ctx, id, args.reason);
    const s = ctx.session;
    ctx.onCommit({ taskId: null, leased: false, feature: s.launch.feature, discipline: s.launch.discipline });
    return { task: requireTask(ctx.store, id), comment };
  },
});

/**
 * A closing connection (socket, HTTP session) or an ending process ends the lease it holds (best effort:
 * a kill -9 is covered by the lease running out). A claimed task goes back (pending, a comment; recorded
 * in ralph_mcp_audit as a release_task call of the session). A session launched for its task only drops
 * its lease and leaves the status: whoever launched it decides what comes next (Ralph reads its signals).
 */
export function releaseOnClose(ctx: ToolContext, why: string): void {
  const s = ctx.session;
  if (!s.leased || s.taskId === null || ctx.forward) return;
  const id = s.taskId;
  try {
    ctx.store.ensureOwnTables();
    ctx.store.write(() => {
      const c = ctx.store.claims.claimOf(id);
      if (!c || !isOwnClaim(s, c) || ctx.store.tasks.taskHead(id)?.status !== 'in_progress') return;
      if (!s.claimed) return ctx.store.claims.dropClaim(id);
      giveBack(ctx, id, why);
      ctx.store.audit.recordCall(writerOf(s), 'release_task', { reason: why }, 'ok');
    });
    applySessionPatch(
      s,
      s.claimed
        ? { taskId: null, leased: false, feature: s.launch.feature, discipline: s.launch.discipline }
        : { leased: false },
    );
  } catch (err) {
    ctx.log.warn({ err, task: id }, 'could not release the claimed task');
  }
}

// ---- task_history ---------------------------------------------------------------------------

const HISTORY_PAGE = PAGES['task_history.limit'];

export const taskHistory = defineTool({
  name: 'task_history',
  title: 'Task history',
  category: 'tasks',
  description: "A task's recorded calls (who, when, tool, arguments, outcome), oldest first.",
  input: () =>
    z.strictObject({
      task_id: taskId(),
      after: z.number().int().min(0).optional().describe('next_after from the last page'),
      limit: z.number().int().min(1).max(HISTORY_PAGE.max).optional(),
    }),
  output: () =>
    z.object({
      task_id: z.number().int(),
      held_by: HolderOut().nullable(),
      entries: z.array(
        z.object({
          id: z.number().int(),
          created: z.string(),
          session_id: z.string(),
          recipe: z.string().nullable(),
          discipline: z.string().nullable(),
          tool: z.string(),
          /** The call's arguments as sent; the stored text when it was cut (at 4 KB) and so no longer parses. */
          arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
          outcome: z.string(),
        }),
      ),
      next_after: z.number().int().nullable(),
    }),
  annotations: READ,
  taskTarget: { arg: 'task_id', writes: false },
  handler(args, ctx) {
    const head = requireTaskHead(ctx.store, args.task_id);
    const limit = args.limit ?? HISTORY_PAGE.default;
    const rows = ctx.store.claims.taskHistory(args.task_id, args.after ?? 0, limit + 1);
    const page = rows.slice(0, limit).map((r) => ({ ...r, arguments: parsed(r.arguments) }));
    return {
      task_id: args.task_id,
      held_by: holderOf(ctx.store, args.task_id, head.status),
      entries: page,
      next_after: rows.length > limit ? page[page.length - 1]!.id : null,
    };
  },
});

/** Arguments as recorded: JSON, or the text itself when it was cut (AUDIT_BOUNDS). */
/** A recorded call's arguments: the object sent, or the stored text when it does not parse as one (it was cut). */
function parsed(text: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

export const CLAIM_TOOLS = [releaseTask, taskHistory];
