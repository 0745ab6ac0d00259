import { z } from 'zod';
import { canonicalPath } from '../domain/paths.js';
import { MAX_CONTEXT_FILES } from '../domain/rules.js';
import { conflict, invalid, ToolError } from '../domain/errors.js';
import { once, CREATE, READ, REPLACE, UPDATE, defineTool } from '../toolkit/tool.js';
import { writerOf, type ToolContext } from '../toolkit/context.js';
import type { Comment } from '../store/records.js';
import { namesTask, numberArray } from '../store/json.js';
import { LIMITS, optText, pathList, taskId, text } from './fields.js';
import {
  requireDiscipline,
  requireFeature,
  requireTask,
  requireTaskExists,
  requireTaskHead,
  sessionTask,
} from './lookups.js';
import { CommentOut, TaskOut } from './shapes.js';
import { commentAuthor, sessionNote } from './comments.js';
import { TaskHintOut, duplicateOk } from './duplicates.js';
import { insertTask, loadTask, recordBlocker, taskFields } from './tasks.js';
import { checkContextFiles, checkDependsOn } from './validate.js';
import { READY_COUNT_MAX } from '../store/ready.js';
import { isoTime } from '../domain/time.js';
import {
  findClaim,
  heldConflict,
  isOwnClaim,
  staleClaims,
  takeTask,
  takenOverFrom,
  UNFINISHED_NAMED,
  namedUnfinished,
  type TookOver,
} from './claims.js';
import { PAGES } from '../domain/limits.js';

/**
 * Tools for what agents actually run into (SPEC-070's scenarios): a blocker upstream, stale context,
 * a task too big to do, a task in the wrong feature, a pool of agents picking work.
 */

const reason = once(() => text(2000));

// ---- report_blocker ------------------------------------------------------------------------

export const reportBlocker = defineTool({
  name: 'report_blocker',
  title: 'Report blocker',
  category: 'tasks',
  description:
    'Mark your task blocked, the reason kept as a comment. With on_task_id, also flag that upstream task (high-priority comment; not reopened).',
  input: () =>
    z.strictObject({
      reason: reason().describe('What blocks you, concretely'),
      on_task_id: taskId('The task whose flaw blocks you').optional(),
    }),
  output: () => z.object({ task: TaskOut(), comments: z.array(CommentOut()) }),
  annotations: CREATE,
  handler(args, ctx) {
    const { store } = ctx;
    const id = sessionTask(ctx, 'report_blocker');
    const own = requireTask(store, id);
    const other = takenOverFrom(ctx, id);
    if (other)
      throw conflict(
        `task ${id} was taken over by session ${other.session_id} after your lease ran out: it is not yours to block; claim another`,
      );
    if (own.status === 'done' || own.status === 'skipped')
      throw conflict(`task ${id} is ${own.status}; only unfinished tasks can be blocked`);
    if (args.on_task_id === id)
      throw invalid('on_task_id must be another task (the one you are blocked on), not your own');
    const upstream = args.on_task_id !== undefined ? requireTask(store, args.on_task_id) : undefined;
    const by = writerOf(ctx.session);
    const comments: Comment[] = [recordBlocker(ctx, id, args.reason, upstream?.id ?? null)];
    if (upstream) {
      comments.push(
        store.comments.addComment(
          {
            task_id: upstream.id,
            author: commentAuthor(ctx.session),
            discipline: ctx.session.discipline,
            agent_task_id: id,
            priority: 'high',
            body: `Task #${id} (${own.title}) is blocked on this task: ${args.reason}`,
          },
          by,
        ),
      );
    }
    return { task: loadTask(ctx, id), comments };
  },
});

// ---- signal_abort --------------------------------------------------------------------------

export const signalAbort = defineTool({
  name: 'signal_abort',
  title: 'Ask Ralph to end this session',
  category: 'session',
  description:
    'Tell Ralph you cannot go on (rate limits, broken environment, impossible task); then stop making calls.',
  input: () => z.strictObject({ reason: reason() }),
  output: () => z.object({ signal_id: z.number().int(), session_id: z.string(), instruction: z.string() }),
  annotations: CREATE,
  handler(args, ctx) {
    const s = ctx.session;
    // A holder whose task another session took over signals nothing about it: the task is not its own.
    const other = s.taskId !== null ? takenOverFrom(ctx, s.taskId) : undefined;
    if (other)
      throw conflict(
        `task ${s.taskId} was taken over by session ${other.session_id} after your lease ran out: it is not yours to abort; stop`,
      );
    const signalId = ctx.store.audit.recordAbort(writerOf(s), args.reason);
    ctx.log.warn({ session_id: s.sessionId, task: s.taskId, reason: args.reason }, 'agent signalled abort');
    return {
      signal_id: signalId,
      session_id: s.sessionId,
      instruction: 'Ralph will end this session. Stop now: make no further tool calls.',
    };
  },
});

// ---- get_dependency_details ----------------------------------------------------------------

const DEPTH = PAGES['get_dependency_details.depth'];
const MAX_NODES = 100;
const COMMENTS_PER_TASK = 20;

export const getDependencyDetails = defineTool({
  name: 'get_dependency_details',
  title: 'Get dependency details',
  category: 'tasks',
  description:
    "What this task's dependencies (transitive) produced: status, output artifacts, comments (completion summaries).",
  input: () =>
    z.strictObject({
      id: taskId(),
      depth: z.number().int().min(1).max(DEPTH.max).optional().describe(`Levels to follow (default ${DEPTH.default})`),
    }),
  output: () =>
    z.object({
      task_id: z.number().int(),
      dependencies: z.array(
        z.object({
          id: z.number().int(),
          title: z.string(),
          status: z.string(),
          depth: z.number().int(),
          output_artifacts: z.array(z.string()),
          comments: z.array(CommentOut()),
        }),
      ),
      missing: z.array(z.number().int()),
      truncated: z.boolean(),
    }),
  annotations: READ,
  taskTarget: { arg: 'id', writes: false },
  handler(args, ctx) {
    const { store } = ctx;
    const root = loadTask(ctx, args.id);
    const maxDepth = args.depth ?? DEPTH.default;
    const seen = new Set<number>([root.id]);
    const out: {
      id: number;
      title: string;
      status: string;
      depth: number;
      output_artifacts: string[];
      comments: z.infer<ReturnType<typeof CommentOut>>[];
    }[] = [];
    const missing: number[] = [];
    let truncated = false;
    let frontier = root.depends_on;
    for (let depth = 1; frontier.length > 0; depth++) {
      if (depth > maxDepth || out.length >= MAX_NODES) {
        truncated = frontier.some((d) => !seen.has(d));
        break;
      }
      const next: number[] = [];
      for (const id of frontier) {
        if (seen.has(id)) continue;
        if (out.length >= MAX_NODES) {
          truncated = true;
          break;
        }
        seen.add(id);
        const t = store.tasks.getTask(id);
        if (!t) {
          missing.push(id);
          continue;
        }
        const comments = store.comments.recentComments(id, COMMENTS_PER_TASK);
        out.push({ id, title: t.title, status: t.status, depth, output_artifacts: t.output_artifacts, comments });
        next.push(...t.depends_on);
      }
      frontier = next;
    }
    return { task_id: root.id, dependencies: out, missing, truncated };
  },
});

// ---- update_task_context -------------------------------------------------------------------

export const updateTaskContext = defineTool({
  name: 'update_task_context',
  title: 'Repair task context',
  category: 'tasks',
  description: "Fix a task's stale context: add or remove context files, replace hints.",
  input: () =>
    z.strictObject({
      id: taskId(),
      add_context_files: pathList().optional(),
      remove_context_files: z.array(z.string().max(LIMITS.path)).max(100).optional(),
      hints: optText().optional().describe('Replaces the hints'),
    }),
  output: () => z.object({ task: TaskOut(), added: z.array(z.string()), removed: z.array(z.string()) }),
  annotations: REPLACE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const { store } = ctx;
    if (args.add_context_files === undefined && args.remove_context_files === undefined && args.hints === undefined) {
      throw invalid('nothing to update: give add_context_files, remove_context_files or hints');
    }
    requireTaskExists(store, args.id);
    const touchesFiles = args.add_context_files !== undefined || args.remove_context_files !== undefined;
    // Read (and check) the stored list before anything is written: one that cannot be rewritten refuses the call.
    let files = touchesFiles ? store.tasks.taskContextFileItems(args.id) : [];
    store.tasks.updateTask(args.id, args.hints !== undefined ? { hints: args.hints } : {});
    if (!touchesFiles) return { task: loadTask(ctx, args.id), added: [], removed: [] };
    const removeSet = new Set((args.remove_context_files ?? []).map(canonicalPath));
    const removed: string[] = [];
    files = files.filter((f) => {
      const hit = typeof f === 'string' && removeSet.has(canonicalPath(f));
      if (hit) removed.push(f as string);
      return !hit;
    });
    const added: string[] = [];
    for (const path of checkContextFiles(ctx, args.add_context_files ?? [], 'add_context_files')) {
      if (files.some((f) => typeof f === 'string' && canonicalPath(f) === path)) continue;
      files.push(path);
      added.push(path);
    }
    if (files.length > MAX_CONTEXT_FILES)
      throw conflict(`task ${args.id} would have ${files.length} context files (max ${MAX_CONTEXT_FILES})`);
    store.tasks.writeTaskContextFiles(args.id, files);
    return { task: loadTask(ctx, args.id), added, removed };
  },
});

// ---- skip_task -----------------------------------------------------------------------------

/** Sets a task skipped with a comment saying why. Call inside a write transaction. */
function skip(ctx: ToolContext, id: number, why: string): Comment {
  const t = loadTask(ctx, id);
  if (t.status === 'skipped') throw conflict(`task ${id} is already skipped`);
  if (t.status === 'done') throw conflict(`task ${id} is done; a finished task cannot be skipped`);
  ctx.store.tasks.setTaskStatus(id, 'skipped');
  ctx.store.claims.dropClaim(id);
  return sessionNote(ctx, id, `Skipped: ${why}`);
}

export const skipTask = defineTool({
  name: 'skip_task',
  title: 'Skip task',
  category: 'tasks',
  description: 'Set a task to skipped with a required reason (kept as a comment). Safer than deleting it.',
  input: () => z.strictObject({ id: taskId(), reason: reason() }),
  output: () => z.object({ task: TaskOut(), comment: CommentOut() }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const note = skip(ctx, args.id, args.reason);
    return { task: loadTask(ctx, args.id), comment: note };
  },
});

// ---- move_task_to_feature ------------------------------------------------------------------

export const moveTaskToFeature = defineTool({
  name: 'move_task_to_feature',
  title: 'Move task to feature',
  category: 'tasks',
  description: 'Move a task to another existing feature.',
  input: () => z.strictObject({ id: taskId(), feature: z.string().max(LIMITS.name) }),
  output: () => z.object({ task: TaskOut(), previous_feature: z.string(), changed: z.boolean() }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const before = loadTask(ctx, args.id);
    const feature = requireFeature(ctx.store, args.feature);
    if (before.feature === feature) return { task: before, previous_feature: before.feature, changed: false };
    ctx.store.tasks.moveTask(args.id, feature);
    return { task: loadTask(ctx, args.id), previous_feature: before.feature, changed: true };
  },
});

// ---- spawn_subtasks ------------------------------------------------------------------------

const MAX_SUBTASKS = 20;

const Subtask = once(() =>
  z.strictObject({
    title: text(LIMITS.title),
    // Their default, the parent's, is said once: in the description ("They inherit").
    feature: z.string().max(LIMITS.name).optional(),
    discipline: z.string().max(LIMITS.name).optional(),
    // A split names what each part is; tags, artifacts and turn estimates come later (update_task).
    ...z.object(taskFields()).omit({ tags: true, output_artifacts: true, estimated_turns: true }).partial().shape,
    status: z.enum(['draft', 'pending']).optional(),
    after: z
      .array(
        z
          .number()
          .int()
          .min(0)
          .max(MAX_SUBTASKS - 1),
      )
      .max(MAX_SUBTASKS)
      .optional()
      .describe('Earlier list indexes it depends on'),
  }),
);

export const spawnSubtasks = defineTool({
  name: 'spawn_subtasks',
  title: 'Split task into subtasks',
  category: 'tasks',
  description:
    "Split a too-big task into subtasks, all or nothing. They inherit the parent's feature, discipline, priority and dependencies; its dependents then need the last one.",
  input: () =>
    z.strictObject({
      parent_id: taskId(),
      tasks: z.array(Subtask()).min(1).max(MAX_SUBTASKS),
      chain: z.boolean().optional().describe('Each subtask depends on the previous one'),
      skip_parent: z.boolean().optional(),
      duplicate_ok: duplicateOk(),
    }),
  output: () =>
    z.object({
      parent: TaskOut(),
      created: z.array(TaskOut()),
      rewired: z.array(z.number().int()),
      /** Per created task (by its index in tasks), existing tasks with similar titles; only those that have some. */
      possible_duplicates: z.array(
        z.object({ index: z.number().int(), task_id: z.number().int(), matches: z.array(TaskHintOut()) }),
      ),
    }),
  annotations: CREATE,
  taskTarget: { arg: 'parent_id', writes: true },
  handler(args, ctx) {
    const parent = loadTask(ctx, args.parent_id);
    if (parent.status === 'done' || parent.status === 'skipped') {
      throw conflict(`task ${parent.id} is ${parent.status}; only an unfinished task can be split into subtasks`);
    }
    const ids: number[] = [];
    const hints: { index: number; task_id: number; matches: z.infer<ReturnType<typeof TaskHintOut>>[] }[] = [];
    args.tasks.forEach((t, i) => {
      const after = new Set(t.after ?? []);
      if (args.chain && i > 0) after.add(i - 1);
      for (const a of after)
        if (a >= i)
          throw invalid(`tasks[${i}].after may only name earlier tasks in the list (indexes below ${i}), got ${a}`);
      const inBatch = [...after].map((a) => ids[a]!);
      // A subtask that needs no sibling needs what the parent needed.
      const own = t.depends_on ?? [];
      const depends_on = [...new Set([...(inBatch.length === 0 ? parent.depends_on : []), ...own, ...inBatch])];
      // The list is built here, from the parent's: it must keep the limit every caller's list keeps.
      if (depends_on.length > LIMITS.listItems) {
        throw conflict(
          `tasks[${i}] would depend on ${depends_on.length} tasks (at most ${LIMITS.listItems}): ${inBatch.length === 0 ? `task ${parent.id}'s ${parent.depends_on.length} (inherited), ` : ''}${own.length} of its own, ${inBatch.length} earlier subtasks. ${inBatch.length === 0 ? `Give it \`after\` (an earlier subtask) so it inherits none, or shorten task ${parent.id}'s depends_on first` : 'Name fewer'}; nothing was created`,
          { limit: LIMITS.listItems },
        );
      }
      try {
        const { after: _after, ...fields } = t;
        const made = insertTask(
          ctx,
          {
            ...fields,
            feature: t.feature ?? parent.feature,
            discipline: t.discipline ?? parent.discipline,
            priority: t.priority ?? parent.priority ?? undefined,
            depends_on,
          },
          // A split names its parts after the parent: the parent and the other parts are not duplicates.
          { exclude: [parent.id, ...ids], duplicateOk: args.duplicate_ok },
        );
        ids.push(made.id);
        if (made.possible_duplicates.length > 0)
          hints.push({ index: i, task_id: made.id, matches: made.possible_duplicates });
      } catch (err) {
        if (err instanceof ToolError)
          throw new ToolError(err.code, `tasks[${i}]: ${err.message}; nothing was created`, err.details);
        throw err;
      }
    });
    const rewired = rewireDependents(ctx, parent.id, ids, args.skip_parent === true);
    const list = ids.map((id) => `#${id}`).join(', ');
    if (args.skip_parent) skip(ctx, parent.id, `split into tasks ${list}`);
    else sessionNote(ctx, parent.id, `Split: subtasks ${list}`);
    return {
      parent: loadTask(ctx, parent.id),
      created: ids.map((id) => loadTask(ctx, id)),
      rewired,
      possible_duplicates: hints,
    };
  },
});

/**
 * Tasks that depended on the parent now depend on the last subtask. When the parent is skipped it
 * will never be done, so it is replaced; otherwise the subtask is added beside it. Each rewired list is
 * checked for cycles (a subtask may itself depend on a dependent), and keeps every stored item it had.
 */
function rewireDependents(ctx: ToolContext, parentId: number, newIds: readonly number[], replace: boolean): number[] {
  const { store } = ctx;
  const lastId = newIds[newIds.length - 1]!;
  const dependents = store.tasks.dependentsOf(parentId).filter((id) => !newIds.includes(id));
  for (const id of dependents) {
    const stored = store.tasks.dependencyItems(id);
    const next = [...(replace ? stored.filter((x) => !namesTask(parentId)(x)) : stored), lastId];
    // Never write a list past the limit callers are held to (repeated splits would grow it by one each).
    if (next.length > LIMITS.listItems) {
      throw conflict(
        `task ${id} depends on task ${parentId}; adding subtask #${lastId} would give it ${next.length} dependencies (at most ${LIMITS.listItems}). Shorten task ${id}'s depends_on (update_task), or pass skip_parent: true so the subtask replaces task ${parentId} there; nothing was created`,
        { task_id: id, limit: LIMITS.listItems },
      );
    }
    checkDependsOn(store, id, numberArray(JSON.stringify(next)));
    store.tasks.writeDependencyItems(id, next);
  }
  return dependents;
}

// ---- claim_next_task -----------------------------------------------------------------------

export const claimNextTask = defineTool({
  name: 'claim_next_task',
  title: 'Claim next ready task',
  category: 'tasks',
  description:
    'Take the highest-priority ready task (or one whose lease ran out), set it in_progress and make it yours. No two agents get the same task.',
  input: () =>
    z.strictObject({
      discipline: z.string().max(LIMITS.name).optional().describe("Default: the session's"),
      feature: z.string().max(LIMITS.name).optional(),
    }),
  output: () =>
    z.object({
      claimed: z.boolean(),
      task: TaskOut().nullable(),
      ready_remaining: z.number().int(),
      /** The task was in_progress under another session whose lease ran out: that claim. */
      took_over: z.object({ session_id: z.string(), claimed_at: z.string(), lease_until: z.string() }).optional(),
    }),
  annotations: CREATE,
  handler(args, ctx) {
    const { store, session } = ctx;
    if (session.taskId !== null && !session.claimed) {
      throw conflict(`this session is launched for task ${session.taskId}; it cannot claim another`);
    }
    requireNothingHeld(ctx);
    if (args.discipline !== undefined && session.disciplineScoped && args.discipline !== session.discipline) {
      throw new ToolError(
        'out_of_scope',
        `this session is scoped to discipline ${String(session.discipline)}; it cannot claim ${args.discipline} tasks`,
      );
    }
    // A session about one feature (its context) claims only in that feature.
    const launchFeature = session.launch.feature;
    if (
      args.feature !== undefined &&
      launchFeature !== null &&
      (store.features.featureName(args.feature) ?? args.feature) !== launchFeature
    ) {
      throw new ToolError(
        'out_of_scope',
        `this session is about ${store.featureNoun} ${launchFeature}; it cannot claim tasks of ${store.featureNoun} ${JSON.stringify(args.feature)}`,
      );
    }
    const wanted = args.discipline ?? session.launch.discipline ?? undefined;
    const discipline = wanted !== undefined ? requireDiscipline(store, wanted) : undefined;
    const feature = args.feature !== undefined ? requireFeature(store, args.feature) : (launchFeature ?? undefined);
    // The previous (finished) task's claim row goes now, whatever happens to it later.
    for (const c of store.claims.sessionClaims(session.sessionId))
      if (isOwnClaim(session, c)) store.claims.dropClaim(c.task_id);
    // A stale task first (its lease ran out: claimed earlier, so first in claim order then); then the
    // highest-priority ready one.
    const now = Date.now();
    const stale = staleTask(ctx, now, discipline, feature);
    const pick = stale ? undefined : store.tasks.pickReadyTask({ discipline, feature });
    // Every check passed: the previous (finished) claim is released once this write commits; the
    // session then holds the new task, or none.
    if (!pick && !stale) {
      ctx.onCommit({
        taskId: null,
        leased: false,
        feature: session.launch.feature,
        discipline: session.launch.discipline,
      });
      return { claimed: false, task: null, ready_remaining: 0 };
    }
    const id = stale ? stale.task_id : pick!.id;
    const took_over = takeTask(
      ctx,
      id,
      stale ? { kind: 'stale', claim: stale } : { kind: 'ready' },
      'claim_next_task',
      now,
    );
    const task = bindClaim(ctx, id);
    if (took_over) {
      // Taking over readies nothing and uses up no ready task.
      const ready = store.tasks.pickReadyTask({ discipline, feature })?.ready ?? 0;
      return { claimed: true, task, ready_remaining: Math.min(ready, READY_COUNT_MAX), took_over };
    }
    // The claimed task was one of the ready ones; in_progress readies nothing else.
    return { claimed: true, task, ready_remaining: Math.min(pick!.ready - 1, READY_COUNT_MAX) };
  },
});

/** A claimed session still working on its task (in_progress, not taken over) claims nothing else. */
function requireNothingHeld(ctx: ToolContext): void {
  const s = ctx.session;
  if (!s.claimed || s.taskId === null) return;
  const held = ctx.store.tasks.taskHead(s.taskId);
  // A task another session took over (this one's lease ran out) is not this session's any more.
  if (held?.status === 'in_progress' && !takenOverFrom(ctx, s.taskId))
    throw conflict(
      `you still hold task ${s.taskId} (in_progress); set it done, blocked or skipped before claiming another`,
    );
}

/**
 * The session holds the task it just claimed once this write commits. A session launched for its task
 * keeps its launch's scope; a claiming one takes the task's feature, and its discipline's overrides
 * apply from now on (a claim only ever narrows a session).
 */
function bindClaim(ctx: ToolContext, id: number) {
  const s = ctx.session;
  const task = loadTask(ctx, id);
  if (s.taskId === id && !s.claimed) {
    ctx.onCommit({ leased: true });
    return task;
  }
  const remove = ctx.disciplineOverrides(task.discipline);
  ctx.onCommit({
    taskId: task.id,
    claimed: true,
    leased: true,
    feature: task.feature,
    discipline: s.launch.discipline ?? task.discipline,
    remove,
  });
  return task;
}

// ---- claim_task ----------------------------------------------------------------------------

export const claimTask = defineTool({
  name: 'claim_task',
  title: 'Claim a task',
  category: 'tasks',
  description:
    'Take this task (ready, or its lease ran out): in_progress and yours. Refused while another agent holds it.',
  input: () => z.strictObject({ id: taskId() }),
  output: () =>
    z.object({
      task: TaskOut(),
      /** The task was in_progress under another session whose lease ran out: that claim. */
      took_over: z.object({ session_id: z.string(), claimed_at: z.string(), lease_until: z.string() }).optional(),
    }),
  annotations: CREATE,
  handler({ id }, ctx) {
    const { store, session } = ctx;
    const launchedFor = session.taskId !== null && !session.claimed ? session.taskId : null;
    if (launchedFor !== null && id !== launchedFor)
      throw new ToolError(
        'out_of_scope',
        `this session is launched for task ${launchedFor}; it cannot claim task ${id}`,
      );
    if (session.taskId !== id) requireNothingHeld(ctx);
    const head = requireTaskHead(store, id);
    if (launchedFor === null) claimScope(ctx, head);
    const now = Date.now();
    const found = findClaim(ctx, id, head.status, isoTime(now));
    switch (found.kind) {
      case 'held':
        throw heldConflict(id, found.claim, session);
      case 'waits':
        throw conflict(
          `task ${id} depends on tasks that are not done: ${namedUnfinished(found.unfinished)}; it can be claimed once they are`,
          { unfinished_dependencies: found.unfinished.slice(0, UNFINISHED_NAMED) },
        );
      case 'closed':
        throw conflict(
          `task ${id} is ${found.status}; only a pending task whose dependencies are done, or an in_progress one whose lease ran out, can be claimed`,
        );
      case 'unleased':
        // A person or Ralph set it in_progress: only the session launched for it may take it.
        if (launchedFor === null)
          throw conflict(
            `task ${id} is in_progress without a lease (set by a person or by Ralph): it is not free to claim`,
          );
        break;
      case 'mine':
        return { task: bindClaim(ctx, id) };
    }
    // The session's previous (finished) task's claim row goes now.
    for (const c of store.claims.sessionClaims(session.sessionId))
      if (c.task_id !== id && isOwnClaim(session, c)) store.claims.dropClaim(c.task_id);
    const took_over: TookOver | undefined = takeTask(ctx, id, found, 'claim_task', now);
    const task = bindClaim(ctx, id);
    return took_over ? { task, took_over } : { task };
  },
});

/** A claiming session takes only tasks of its --discipline and of its context's feature. */
function claimScope(ctx: ToolContext, head: { id: number; discipline: string; feature: string }): void {
  const s = ctx.session;
  if (s.disciplineScoped && head.discipline !== s.discipline)
    throw new ToolError(
      'out_of_scope',
      `this session is scoped to discipline ${String(s.discipline)}; task ${head.id} is ${head.discipline}'s`,
    );
  const feature = s.launch.feature;
  if (feature !== null && head.feature !== feature)
    throw new ToolError(
      'out_of_scope',
      `this session is about ${ctx.store.featureNoun} ${feature}; task ${head.id} belongs to ${head.feature}`,
    );
}

/**
 * The in_progress task whose claim's lease ran out longest ago, in the claim's filters; stale rows of
 * finished tasks are dropped.
 */
const staleTask = (ctx: ToolContext, now: number, discipline: string | undefined, feature: string | undefined) =>
  staleClaims(ctx.store, isoTime(now), { discipline, feature }, 1, (c) => ctx.store.claims.dropClaim(c.task_id))[0];

export const WORKFLOW_TOOLS = [
  claimNextTask,
  claimTask,
  reportBlocker,
  skipTask,
  spawnSubtasks,
  moveTaskToFeature,
  updateTaskContext,
  getDependencyDetails,
];
export const SESSION_TOOLS = [signalAbort];
