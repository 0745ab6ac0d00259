import { z } from 'zod';
import { conflict, invalid } from '../errors.js';
import { CREATE, DELETE, READ, REPLACE, UPDATE, defineTool, type ToolContext } from '../registry/types.js';
import { sessionNote } from './comments.js';
import type { RalphStore, TaskInsert, TaskQuery } from '../store/store.js';
import { LIST_READ_MAX } from '../store/json.js';
import { TaskHintOut, checkTitle, duplicateOk, type TitleCheck } from './duplicates.js';
import { checkContextFiles, checkDependsOn } from './validate.js';
import { LIMITS, optText, pathList, priority, status, strList, taskId, text } from './fields.js';
import { requireDiscipline, requireFeature, requireTask, requireTaskHead } from './lookups.js';
import { CommentOut, QuestionOut, TaskOut, TaskRowOut } from './shapes.js';
import { HolderOut, holder, holderOf } from './claims.js';

export const loadTask = (ctx: Pick<ToolContext, 'store'>, id: number) => requireTask(ctx.store, id);

/**
 * The optional status/feature/discipline filters of list_tasks and search_tasks. An unknown feature or
 * discipline is not_found (naming the existing ones), not an empty result; names come back as stored.
 */
export function taskQuery(ctx: Pick<ToolContext, 'store'>, given: TaskQuery): TaskQuery {
  return {
    status: given.status,
    feature: given.feature !== undefined ? requireFeature(ctx.store, given.feature) : undefined,
    discipline: given.discipline !== undefined ? requireDiscipline(ctx.store, given.discipline) : undefined,
  };
}

// ---- list_tasks ----------------------------------------------------------------------------

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;

export const listTasks = defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  category: 'tasks',
  description: 'List tasks as compact rows (id, title, status, priority, feature, discipline, depends_on), by id, paginated.',
  input: z.strictObject({
    filter_status: status.optional(),
    filter_feature: z.string().max(LIMITS.name).optional().describe('Feature name'),
    filter_discipline: z.string().max(LIMITS.name).optional().describe('Discipline name'),
    limit: z.number().int().min(1).max(PAGE_MAX).optional().describe(`Page size, 1-${PAGE_MAX} (default ${PAGE_DEFAULT})`),
    cursor: z.string().max(32).optional().describe('next_cursor from the previous page'),
  }),
  output: z.object({ tasks: z.array(TaskRowOut.extend({ held_by: HolderOut.nullable() })), total: z.number().int(), next_cursor: z.string().nullable() }),
  annotations: READ,
  handler(args, ctx) {
    const query = taskQuery(ctx, { status: args.filter_status, feature: args.filter_feature, discipline: args.filter_discipline });
    let after = 0;
    if (args.cursor !== undefined) {
      if (!/^\d{1,15}$/.test(args.cursor)) throw invalid('cursor is not one this server returned; omit it to start from the first page');
      after = Number(args.cursor);
    }
    const limit = args.limit ?? PAGE_DEFAULT;
    const rows = ctx.store.listTasks(query, after, limit + 1);
    const page = rows.slice(0, limit);
    const claims = ctx.store.claimsOf(page.filter((r) => r.status === 'in_progress').map((r) => r.id));
    return {
      tasks: page.map((r) => ({ ...r, held_by: holder(claims.get(r.id), r.status) })),
      total: ctx.store.countTasks(query),
      next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
    };
  },
});

// ---- get_task ------------------------------------------------------------------------------

/**
 * Comments a get_task answer holds: the most recent, a page at a time (a task may have any number;
 * 300 of 10,000 characters made a 3-million-character answer). Older pages by `comments_before`.
 */
export const COMMENT_PAGE = { default: 20, max: 100 } as const;

export const getTask = defineTool({
  name: 'get_task',
  title: 'Get task',
  category: 'tasks',
  description:
    'One task in full: fields, recent comments (oldest first), dependencies (id, title, status), dependents, open questions',
  input: z.strictObject({
    id: taskId(),
    comment_limit: z.number().int().min(1).max(COMMENT_PAGE.max).optional(),
    comments_before: z.number().int().positive().optional(),
  }),
  output: z.object({
    task: TaskOut,
    comments: z.array(CommentOut),
    /** All comments on the task, however many `comments` shows. */
    comment_count: z.number().int(),
    /** Pass as comments_before to get the page of older comments; null when there are none. */
    older_comments_before: z.number().int().nullable(),
    dependencies: z.array(z.object({ id: z.number().int(), title: z.string().nullable(), status: z.string() })),
    /** Ids of the tasks that depend on this one (the first 1,000; truncated_dependents when there are more). */
    dependents: z.array(z.number().int()),
    truncated_dependents: z.literal(true).optional(),
    open_questions: z.array(QuestionOut),
    /** The session working on it (claim_next_task), since when, and until when its lease runs; null: nobody. */
    held_by: HolderOut.nullable(),
  }),
  annotations: READ,
  taskTarget: { arg: 'id', writes: false },
  handler({ id, comment_limit, comments_before }, ctx) {
    const task = loadTask(ctx, id);
    const limit = comment_limit ?? COMMENT_PAGE.default;
    // One more than asked: whether older comments remain, without counting them.
    const page = ctx.store.recentComments(id, limit + 1, comments_before);
    const comments = page.length > limit ? page.slice(1) : page;
    const dependencies = task.depends_on.map((dep) => {
      const r = ctx.store.taskHead(dep);
      return r ? { id: dep, title: r.title, status: r.status } : { id: dep, title: null, status: 'missing' };
    });
    // One more than a read returns: whether there are more, without counting them (as stored lists are read).
    const dependents = ctx.store.dependentsOf(id, LIST_READ_MAX + 1);
    const open_questions = ctx.store
      .questions(id)
      .filter((q) => q.answer === null)
      .map(({ task_id: _t, session_id: _s, ...q }) => q);
    return {
      task,
      comments,
      comment_count: ctx.store.commentCount(id),
      older_comments_before: page.length > limit ? comments[0]!.id : null,
      dependencies,
      dependents: dependents.slice(0, LIST_READ_MAX),
      ...(dependents.length > LIST_READ_MAX ? { truncated_dependents: true as const } : {}),
      open_questions,
      held_by: holderOf(ctx.store, id, task.status),
    };
  },
});

// ---- create_task ---------------------------------------------------------------------------

export const taskFields = {
  description: optText(),
  priority: priority.optional(),
  acceptance_criteria: strList(),
  depends_on: z.array(taskId()).max(LIMITS.listItems).describe('Task ids that must be done first'),
  tags: strList(),
  context_files: pathList('Files to read first (project-relative)'),
  output_artifacts: strList(),
  hints: optText(),
  estimated_turns: z.number().int().min(1).max(1000),
};

export const createTask = defineTool({
  name: 'create_task',
  title: 'Create task',
  category: 'tasks',
  description: 'Create a task in an existing feature and discipline. Returns the new task with its id.',
  input: z.strictObject({
    feature: z.string().max(LIMITS.name).describe('Existing feature name'),
    discipline: z.string().max(LIMITS.name).describe('Existing discipline name'),
    title: text(LIMITS.title),
    ...z.object(taskFields).partial().shape,
    status: z.enum(['draft', 'pending']).optional().describe('Default pending; draft = needs enrichment'),
    duplicate_ok: duplicateOk,
  }),
  output: z.object({ task: TaskOut, possible_duplicates: z.array(TaskHintOut) }),
  annotations: CREATE,
  handler({ duplicate_ok, ...args }, ctx) {
    const { id, possible_duplicates } = insertTask(ctx, args, { duplicateOk: duplicate_ok });
    return { task: loadTask(ctx, id), possible_duplicates };
  },
});

export interface NewTask {
  feature: string;
  discipline: string;
  title: string;
  description?: string | undefined;
  status?: 'draft' | 'pending' | undefined;
  priority?: string | undefined;
  tags?: string[] | undefined;
  depends_on?: number[] | undefined;
  acceptance_criteria?: string[] | undefined;
  context_files?: string[] | undefined;
  output_artifacts?: string[] | undefined;
  hints?: string | undefined;
  estimated_turns?: number | undefined;
}

/**
 * Checks and inserts one task; returns its id and the existing tasks whose titles look like its own
 * (an exact duplicate in its feature is refused, see duplicates.ts). Call inside a write transaction.
 */
export function insertTask(ctx: ToolContext, t: NewTask, check: Omit<TitleCheck, 'feature'> = {}): { id: number; possible_duplicates: z.infer<typeof TaskHintOut>[] } {
  const { store } = ctx;
  const feature = requireFeature(store, t.feature);
  const insert: TaskInsert = {
    feature,
    discipline: requireDiscipline(store, t.discipline),
    title: t.title,
    description: t.description ?? null,
    status: t.status ?? 'pending',
    priority: t.priority ?? null,
    tags: t.tags ?? [],
    depends_on: checkDependsOn(store, null, t.depends_on ?? []),
    acceptance_criteria: t.acceptance_criteria ?? [],
    context_files: checkContextFiles(ctx, t.context_files ?? []),
    output_artifacts: t.output_artifacts ?? [],
    hints: t.hints ?? null,
    estimated_turns: t.estimated_turns ?? null,
  };
  const possible_duplicates = checkTitle(ctx, t.title, { ...check, feature });
  return { id: store.createTask(insert), possible_duplicates };
}

// ---- update_task ---------------------------------------------------------------------------

const UPDATABLE = ['title', 'description', 'priority', 'acceptance_criteria', 'depends_on', 'tags', 'context_files', 'output_artifacts', 'hints', 'estimated_turns'] as const;
export const updateTask = defineTool({
  name: 'update_task',
  title: 'Update task',
  category: 'tasks',
  description: 'Change only the given fields of a task (lists are replaced whole).',
  input: z.strictObject({
    id: taskId(),
    title: text(LIMITS.title).optional(),
    ...z.object(taskFields).partial().shape,
  }),
  output: z.object({ task: TaskOut, changed: z.array(z.string()) }),
  annotations: REPLACE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const { store } = ctx;
    const given = UPDATABLE.filter((f) => (args as Record<string, unknown>)[f] !== undefined);
    if (given.length === 0) throw invalid(`nothing to update: give at least one of ${UPDATABLE.join(', ')}`);
    loadTask(ctx, args.id);
    const { id: _id, ...changes } = args;
    if (args.depends_on !== undefined) changes.depends_on = checkDependsOn(store, args.id, args.depends_on);
    if (args.context_files !== undefined) changes.context_files = checkContextFiles(ctx, args.context_files);
    store.updateTask(args.id, changes);
    return { task: loadTask(ctx, args.id), changed: given };
  },
});

// ---- delete_task ---------------------------------------------------------------------------

export const deleteTask = defineTool({
  name: 'delete_task',
  title: 'Delete task',
  category: 'tasks',
  description: 'Delete a task and its comments. Refused while other tasks depend on it.',
  input: z.strictObject({ id: taskId() }),
  output: z.object({ deleted_id: z.number().int(), deleted_comments: z.number().int() }),
  annotations: DELETE,
  taskTarget: { arg: 'id', writes: true },
  handler({ id }, ctx) {
    loadTask(ctx, id);
    const dependents = ctx.store.dependentsOf(id);
    if (dependents.length > 0) {
      throw conflict(`task ${id} cannot be deleted: tasks ${dependents.join(', ')} depend on it; change their depends_on first`, { dependents });
    }
    ctx.store.dropClaim(id);
    return { deleted_id: id, deleted_comments: ctx.store.deleteTask(id) };
  },
});

// ---- set_task_status -----------------------------------------------------------------------

/** Unfinished dependencies named in a refusal or an override's comment (the rest are counted). */
const UNFINISHED_SHOWN = 20;

const describeDeps = (deps: readonly { id: number; status: string }[]) => deps.map((d) => `#${d.id} (${d.status})`).join(', ');

export const setTaskStatus = defineTool({
  name: 'set_task_status',
  title: 'Set task status',
  category: 'tasks',
  description: "Set a task's status. done needs its dependencies done, or force + reason (kept as a comment).",
  input: z.strictObject({
    id: taskId(),
    status,
    force: z.boolean().optional(),
    reason: text(2000).optional(),
  }),
  output: z.object({
    task: TaskOut,
    previous_status: z.string(),
    changed: z.boolean(),
    /** Leaving blocked: whether what blocked the task is resolved (null: nothing here can tell). */
    blocker: z.object({ resolved: z.boolean().nullable(), upstream_task_id: z.number().int().nullable(), detail: z.string() }).optional(),
    /** done with force: the dependencies that were not done, and the comment that records it. */
    unfinished_dependencies: z.array(z.object({ id: z.number().int(), status: z.string() })).optional(),
    comment: CommentOut.optional(),
    /** The task was in_progress under another session's claim (which this change ended unless it stays in_progress). */
    held_by: HolderOut.optional(),
  }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler({ id, status: next, force, reason }, ctx) {
    const { store } = ctx;
    if ((force === true) !== (reason !== undefined)) throw invalid('force and reason go together: force: true with a reason saying why the unfinished dependencies do not matter');
    if (force && next !== 'done') throw invalid(`force only applies to status done (got status ${next})`);
    // The status alone first (cheap on either generation); the whole task is read once, for the answer.
    const before = requireTaskHead(store, id);
    if (before.status === next) return { task: loadTask(ctx, id), previous_status: before.status, changed: false };
    // Another session's claim: the change goes ahead (scope already decided who may), and says whose task it was.
    const held = holderOf(store, id, before.status);
    const heldByOther = held !== null && held.session_id !== ctx.session.sessionId ? held : undefined;
    // The rule claims follow too (store/ready.ts): a task is ready when every dependency is done.
    const unfinished = next === 'done' ? store.unfinishedDependencies(id, UNFINISHED_SHOWN + 1) : [];
    const shown = describeDeps(unfinished.slice(0, UNFINISHED_SHOWN)) + (unfinished.length > UNFINISHED_SHOWN ? ', …' : '');
    if (unfinished.length > 0 && !force) {
      throw conflict(
        `task ${id} depends on tasks that are not done: ${shown}. Finish them first, remove the dependency if it is wrong, or pass force: true with a reason; nothing was changed`,
        { unfinished_dependencies: unfinished.slice(0, UNFINISHED_SHOWN) },
      );
    }
    const blocker = before.status === 'blocked' ? blockerState(store, id) : undefined;
    store.setTaskStatus(id, next);
    if (next !== 'in_progress') store.dropClaim(id);
    const note =
      unfinished.length > 0
        ? sessionNote(ctx, id, `Set done with unfinished dependencies ${shown}: ${reason!}`, 'high')
        : undefined;
    return {
      task: loadTask(ctx, id),
      previous_status: before.status,
      changed: true,
      ...(blocker ? { blocker } : {}),
      ...(heldByOther ? { held_by: heldByOther } : {}),
      ...(note ? { unfinished_dependencies: unfinished.slice(0, UNFINISHED_SHOWN), comment: note } : {}),
    };
  },
});

/** Whether what blocked a task is resolved: an upstream task is once it is done; anything else nobody here can tell. */
function blockerState(store: RalphStore, id: number): { resolved: boolean | null; upstream_task_id: number | null; detail: string } {
  const b = store.blocker(id);
  if (b.upstream === null) {
    return {
      resolved: null,
      upstream_task_id: null,
      detail: b.detail === null ? 'no blocker was recorded' : `blocked on something outside the plan (${b.detail}); check that it is resolved`,
    };
  }
  const up = store.taskHead(b.upstream);
  if (!up) return { resolved: null, upstream_task_id: b.upstream, detail: `blocked on task #${b.upstream}, which no longer exists` };
  return {
    resolved: up.status === 'done',
    upstream_task_id: up.id,
    detail: `blocked on task #${up.id} (${up.title}), which is ${up.status}${up.status === 'done' ? '' : ': not resolved yet'}`,
  };
}

// ---- enrich_task ---------------------------------------------------------------------------

export const enrichTask = defineTool({
  name: 'enrich_task',
  title: 'Enrich draft task',
  category: 'tasks',
  description: 'Add pseudocode (optionally criteria and context files) to a draft task and make it pending.',
  input: z.strictObject({
    id: taskId(),
    pseudocode: text(LIMITS.longText),
    acceptance_criteria: strList().optional().describe('Replaces the current list'),
    context_files: pathList('Replaces the list (project-relative paths)').optional(),
  }),
  output: z.object({ task: TaskOut }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const task = loadTask(ctx, args.id);
    if (task.status !== 'draft') throw conflict(`task ${args.id} is ${task.status}; only draft tasks can be enriched`);
    const files = args.context_files !== undefined ? checkContextFiles(ctx, args.context_files) : undefined;
    ctx.store.enrichTask(args.id, args.pseudocode, args.acceptance_criteria, files);
    return { task: loadTask(ctx, args.id) };
  },
});

export const TASK_TOOLS = [listTasks, getTask, createTask, updateTask, deleteTask, setTaskStatus, enrichTask];
