import { z } from 'zod';
import { ToolError, conflict, invalid } from '../domain/errors.js';
import { once, CREATE, DELETE, READ, REPLACE, UPDATE, defineTool } from '../toolkit/tool.js';
import { writerOf, type ToolContext } from '../toolkit/context.js';
import type { Comment } from '../store/records.js';
import { sessionNote } from './comments.js';
import type { ListedTask, RalphStore, TaskInsert, TaskListQuery, TaskQuery } from '../store/store.js';
import { TASK_SORTS, rankOf, type HolderFilter, type TaskListAfter } from '../store/taskList.js';
import { READY_COUNT_MAX } from '../store/ready.js';
import { PRIORITIES, TASK_STATUSES } from '../domain/rules.js';
import { LIST_READ_MAX } from '../store/json.js';
import { TaskHintOut, checkTitle, duplicateOk, type TitleCheck } from './duplicates.js';
import { checkContextFiles, checkDependsOn } from './validate.js';
import { LIMITS, optText, orSemicolons, pathList, priority, status, strList, taskId, text } from './fields.js';
import { requireDiscipline, requireFeature, requireTask, requireTaskHead, requireTaskView } from './lookups.js';
import { CommentOut, QuestionOut, TaskOut, TaskRowOut } from './shapes.js';
import {
  HolderOut,
  UNFINISHED_NAMED,
  holder,
  holderOf,
  leaseOnResume,
  namedUnfinished,
  staleClaims,
} from './claims.js';
import { fieldsArg, keeps, pickRow, rowKeys } from './rowFields.js';
import { isoTime } from '../domain/time.js';
import { PAGES } from '../domain/limits.js';

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

const { default: PAGE_DEFAULT, max: PAGE_MAX } = PAGES['list_tasks.limit'];

/**
 * A list of values; one value alone is read as a list of one. Not a union, which would list every value
 * twice in a listing every session pays for.
 */
const oneOrMore = <T extends z.ZodTypeAny>(one: T, max: number) =>
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(one).min(1).max(max));
const asList = <T>(v: T | T[] | undefined): T[] | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? [...new Set(v)] : [v];

/**
 * updated_since: a date (YYYY-MM-DD) or an RFC 3339 time, as the day and UTC second it starts at
 * (store/taskList.ts changedSince compares both forms Ralph stores: a day, or a day and a time).
 */
export function sinceOf(v: string): { day: string; time: string } {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const time = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v);
  const at = day ? Date.parse(`${v}T00:00:00Z`) : time ? Date.parse(v.replace(' ', 'T')) : NaN;
  // A date that does not exist (2026-02-30) parses as another day: refused, not moved.
  if (Number.isNaN(at) || (day && new Date(at).toISOString().slice(0, 10) !== v)) {
    throw invalid(
      `updated_since: ${JSON.stringify(v)} is neither a date (YYYY-MM-DD) nor an RFC 3339 time (2026-02-01T09:30:00Z)`,
    );
  }
  const utc = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
  return { day: utc.slice(0, 10), time: utc };
}

/**
 * The page cursor: the sort, a hash of its query (a cursor of another query is refused) and the last
 * row's position in that sort, in at most 32 characters. A bare id (an older server's cursor) still
 * reads as an id-sort position.
 */
const CURSOR = /^([ipu])([0-9a-z]{6})\.(?:(\d)\.|(\d{8}|0)\.)?(\d{1,15})$/;
function queryHash(q: TaskListQuery): string {
  const canon = JSON.stringify([
    q.sort ?? 'id',
    q.statuses && [...q.statuses].sort(),
    q.priorities && [...q.priorities].sort(),
    q.feature,
    q.discipline,
    q.tag,
    q.ready,
    q.holder,
    q.updatedSince?.time,
  ]);
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < canon.length; i++) h = Math.imul(h ^ canon.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 36 ** 6).toString(36).padStart(6, '0');
}
function cursorOf(q: TaskListQuery, last: ListedTask): string {
  const sort = q.sort ?? 'id';
  const pos =
    sort === 'priority'
      ? `${rankOf(last.priority)}.`
      : sort === 'updated'
        ? `${last.changed.replaceAll('-', '') || '0'}.`
        : '';
  return `${sort[0]}${queryHash(q)}.${pos}${last.id}`;
}
function afterOf(q: TaskListQuery, cursor: string | undefined): TaskListAfter | null {
  if (cursor === undefined) return null;
  const sort = q.sort ?? 'id';
  if (sort === 'id' && /^\d{1,15}$/.test(cursor)) return { id: Number(cursor) };
  const m = CURSOR.exec(cursor);
  if (
    !m ||
    m[1] !== sort[0] ||
    m[2] !== queryHash(q) ||
    (sort === 'priority') !== (m[3] !== undefined) ||
    (sort === 'updated') !== (m[4] !== undefined)
  ) {
    throw invalid(
      'cursor is not one this server returned for these filters and sort; omit it to start from the first page',
    );
  }
  const day = m[4] === undefined || m[4] === '0' ? '' : `${m[4].slice(0, 4)}-${m[4].slice(4, 6)}-${m[4].slice(6)}`;
  return { id: Number(m[5]), rank: m[3] !== undefined ? Number(m[3]) : undefined, day };
}

/** held_by: "me" is this session; any other word but any/none is a session id as held_by shows it. */
function holderFilter(value: string, ctx: ToolContext): HolderFilter {
  if (value === 'any' || value === 'none') return value;
  if (value === 'me') return { session: ctx.session.sessionId };
  if (value.trim() === '')
    throw invalid('held_by is empty; give me, any, none or a session id (as held_by.session_id shows it)');
  return { session: value };
}

/** The keys of a list_tasks row `fields` may name (truncated_lists goes with depends_on). */
const ROW_FIELDS = ['id', 'title', 'status', 'priority', 'feature', 'discipline', 'depends_on', 'template_id'];
const LIST_FIELDS = [...ROW_FIELDS, 'held_by'];

export const listTasks = defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  category: 'tasks',
  description: 'Task rows by page. Filters AND; sort priority = claim order, updated = newest first.',
  input: () =>
    z.strictObject({
      filter_status: oneOrMore(status(), TASK_STATUSES.length).optional(),
      filter_feature: z.string().max(LIMITS.name).optional(),
      filter_discipline: z.string().max(LIMITS.name).optional(),
      filter_priority: oneOrMore(priority(), PRIORITIES.length).optional(),
      filter_tag: z.string().max(LIMITS.listItem).optional(),
      ready: z.boolean().optional().describe('Pending, dependencies done'),
      held_by: z.string().max(LIMITS.name).optional().describe('me, any, none or a session id'),
      updated_since: z.string().max(40).optional().describe('Date or RFC 3339'),
      sort: z.enum(TASK_SORTS).optional(),
      limit: z.number().int().min(1).max(PAGE_MAX).optional().describe(`1-${PAGE_MAX} (default ${PAGE_DEFAULT})`),
      cursor: z.string().max(32).optional().describe("A page's next_cursor"),
      fields: fieldsArg(),
    }),
  output: () =>
    z.object({
      // Any key but id may be left out by `fields`.
      tasks: z.array(TaskRowOut().extend({ held_by: HolderOut().nullable() }).partial().required({ id: true })),
      total: z.number().int(),
      total_capped: z.literal(true).optional(),
      next_cursor: z.string().nullable(),
    }),
  annotations: READ,
  handler(args, ctx) {
    const keys = rowKeys(args.fields, LIST_FIELDS);
    const query: TaskListQuery = {
      ...taskQuery(ctx, { feature: args.filter_feature, discipline: args.filter_discipline }),
      statuses: asList(args.filter_status),
      priorities: asList(args.filter_priority),
      tag: args.filter_tag,
      ready: args.ready,
      holder: args.held_by !== undefined ? holderFilter(args.held_by, ctx) : undefined,
      updatedSince: args.updated_since !== undefined ? sinceOf(args.updated_since) : undefined,
      sort: args.sort,
    };
    const after = afterOf(query, args.cursor);
    const limit = args.limit ?? PAGE_DEFAULT;
    const rows = ctx.store.tasks.listTasks(query, after, limit + 1);
    const page = rows.slice(0, limit);
    // Holders only when rows show them: a claim probe per task in progress.
    const held = keeps(keys, 'held_by') ? page.filter((r) => r.status === 'in_progress').map((r) => r.id) : [];
    const claims = ctx.store.claims.claimsOf(held);
    // Readiness costs a dependency check per pending task: with `ready`, total counts up to
    // claim_next_task's ready_remaining bound and says when it stopped.
    const max = query.ready !== undefined ? READY_COUNT_MAX : undefined;
    // "Not held" is nearly every task: counted as all minus the held (two index counts, not a claim
    // probe per task). Held tasks are a subset of the same filters, so the difference is exact.
    const total =
      query.holder === 'none' && max === undefined
        ? ctx.store.tasks.countTasks({ ...query, holder: undefined }) -
          ctx.store.tasks.countTasks({ ...query, holder: 'any' })
        : ctx.store.tasks.countTasks(query, max);
    return {
      tasks: page.map(({ changed: _c, ...row }) =>
        pickRow({ ...row, held_by: holder(claims.get(row.id), row.status) }, keys),
      ),
      total: max !== undefined ? Math.min(total, max) : total,
      ...(max !== undefined && total > max ? { total_capped: true as const } : {}),
      next_cursor: rows.length > limit ? cursorOf(query, page[page.length - 1]!) : null,
    };
  },
});

// ---- next_tasks ----------------------------------------------------------------------------

export const NEXT_MAX = PAGES['next_tasks.limit'].max;
/** The keys of a next_tasks row `fields` may name. */
const NEXT_FIELDS = [...ROW_FIELDS, 'takes_over'];

/**
 * What claim_next_task would take, in claim order, taking nothing: the claim's own statement
 * (store/ready.ts readySql) with a limit. Discipline and feature as the claim resolves them: the
 * session's discipline by default, a discipline- or feature-scoped session only its own.
 */
export const nextTasks = defineTool({
  name: 'next_tasks',
  title: 'Preview next tasks',
  category: 'tasks',
  description: 'Preview claim_next_task: the next ready tasks, in order.',
  input: () =>
    z.strictObject({
      discipline: z.string().max(LIMITS.name).optional().describe("Default: the session's"),
      feature: z.string().max(LIMITS.name).optional(),
      limit: z
        .number()
        .int()
        .min(1)
        .max(NEXT_MAX)
        .optional()
        .describe(`1-${NEXT_MAX} (default ${PAGES['next_tasks.limit'].default})`),
      fields: fieldsArg(),
    }),
  output: () =>
    z.object({
      tasks: z.array(TaskRowOut().extend({ takes_over: HolderOut().optional() }).partial().required({ id: true })),
    }),
  annotations: READ,
  handler(args, ctx) {
    const { store, session } = ctx;
    const keys = rowKeys(args.fields, NEXT_FIELDS);
    if (args.discipline !== undefined && session.disciplineScoped && args.discipline !== session.discipline) {
      throw new ToolError(
        'out_of_scope',
        `this session is scoped to discipline ${String(session.discipline)}; its claims take only its tasks`,
      );
    }
    const launchFeature = session.launch.feature;
    if (
      args.feature !== undefined &&
      launchFeature !== null &&
      (store.features.featureName(args.feature) ?? args.feature) !== launchFeature
    ) {
      throw new ToolError(
        'out_of_scope',
        `this session is about ${store.featureNoun} ${launchFeature}; its claims take only tasks of it`,
      );
    }
    const wanted = args.discipline ?? session.launch.discipline ?? undefined;
    const discipline = wanted !== undefined ? requireDiscipline(store, wanted) : undefined;
    const feature = args.feature !== undefined ? requireFeature(store, args.feature) : (launchFeature ?? undefined);
    // A claim takes a task whose lease ran out before any ready one (claim_next_task): so does the preview.
    const limit = args.limit ?? 5;
    const stale = staleClaims(store, isoTime(Date.now()), { discipline, feature }, limit);
    const takes = new Map(stale.map((c) => [c.task_id, c]));
    const ids = [
      ...takes.keys(),
      ...(stale.length < limit ? store.tasks.readyTasks({ discipline, feature }, limit - stale.length) : []),
    ];
    // The rows list_tasks gives (template_id on Ralph's current schema only), read together.
    const tasks = store.tasks.listedTasks(ids).map((t) => {
      const c = takes.get(t.id);
      return pickRow(
        {
          id: t.id,
          title: t.title,
          status: t.status,
          priority: t.priority,
          feature: t.feature,
          discipline: t.discipline,
          depends_on: t.depends_on,
          ...(t.template_id !== undefined ? { template_id: t.template_id } : {}),
          ...(t.truncated_lists?.includes('depends_on') ? { truncated_lists: ['depends_on'] } : {}),
          ...(c ? { takes_over: holder(c, 'in_progress')! } : {}),
        },
        keys,
      );
    });
    return { tasks };
  },
});

// ---- get_task ------------------------------------------------------------------------------

/**
 * Comments a get_task answer holds: the most recent, a page at a time, since a task may have any
 * number. Older pages by `comments_before`.
 */
export const COMMENT_PAGE = PAGES['get_task.comment_limit'];

export const getTask = defineTool({
  name: 'get_task',
  title: 'Get task',
  category: 'tasks',
  description: 'One task in full: fields, recent comments (oldest first), dependencies, dependents, open questions',
  input: () =>
    z.strictObject({
      id: taskId(),
      comment_limit: z.number().int().min(1).max(COMMENT_PAGE.max).optional(),
      comments_before: z.number().int().positive().optional(),
    }),
  output: () =>
    z.object({
      task: TaskOut(),
      comments: z.array(CommentOut()),
      /** All comments on the task, however many `comments` shows. */
      comment_count: z.number().int(),
      /** Pass as comments_before to get the page of older comments; null when there are none. */
      older_comments_before: z.number().int().nullable(),
      dependencies: z.array(z.object({ id: z.number().int(), title: z.string().nullable(), status: z.string() })),
      /** Ids of the tasks that depend on this one (the first 1,000; truncated_dependents when there are more). */
      dependents: z.array(z.number().int()),
      truncated_dependents: z.literal(true).optional(),
      open_questions: z.array(QuestionOut()),
      /** The session working on it (claim_next_task), since when, and until when its lease runs; null: nobody. */
      held_by: HolderOut().nullable(),
    }),
  annotations: READ,
  taskTarget: { arg: 'id', writes: false },
  handler({ id, comment_limit, comments_before }, ctx) {
    const limit = comment_limit ?? COMMENT_PAGE.default;
    // One more comment than asked: whether older ones remain, without counting them; one more dependent
    // than a read returns: whether there are more (as stored lists are read).
    const view = requireTaskView(ctx.store, id, limit + 1, comments_before, LIST_READ_MAX + 1);
    const { task, comments: page, dependents } = view;
    const comments = page.length > limit ? page.slice(1) : page;
    const dependencies = task.depends_on.map((dep) => {
      const r = view.heads?.get(dep) ?? ctx.store.tasks.taskHead(dep);
      return r ? { id: dep, title: r.title, status: r.status } : { id: dep, title: null, status: 'missing' };
    });
    // [] first for none: Db.all says why.
    const open_questions =
      view.questions.length === 0
        ? []
        : view.questions.filter((q) => q.answer === null).map(({ task_id: _t, session_id: _s, ...q }) => q);
    return {
      task,
      comments,
      // The newest page, whole: it is every comment there is (no count needed).
      comment_count:
        comments_before === undefined && page.length <= limit ? page.length : ctx.store.comments.commentCount(id),
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

export const taskFields = once(() => ({
  description: optText(),
  priority: priority().optional(),
  acceptance_criteria: orSemicolons(strList()),
  depends_on: z.array(taskId()).max(LIMITS.listItems),
  tags: strList(),
  context_files: orSemicolons(pathList('Files to read first')),
  output_artifacts: strList(),
  hints: optText(),
  estimated_turns: z.number().int().min(1).max(1000),
}));

export const createTask = defineTool({
  name: 'create_task',
  title: 'Create task',
  category: 'tasks',
  description: 'Create a task in an existing feature and discipline; returns it with its id.',
  input: () =>
    z.strictObject({
      // "Existing" is said once, in the description.
      feature: z.string().max(LIMITS.name),
      discipline: z.string().max(LIMITS.name),
      title: text(LIMITS.title),
      ...z.object(taskFields()).partial().shape,
      status: z.enum(['draft', 'pending']).optional().describe("draft needs enrichment; braindump's default"),
      duplicate_ok: duplicateOk(),
    }),
  output: () => z.object({ task: TaskOut(), possible_duplicates: z.array(TaskHintOut()) }),
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
export function insertTask(
  ctx: ToolContext,
  t: NewTask,
  check: Omit<TitleCheck, 'feature'> = {},
): { id: number; possible_duplicates: z.infer<ReturnType<typeof TaskHintOut>>[] } {
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
  return { id: store.tasks.createTask(insert), possible_duplicates };
}

// ---- update_task ---------------------------------------------------------------------------

/** A reason for a status (set_task_status's force, update_task's blocked_by). */
const reason = once(() => text(2000));

/** Leaving blocked: whether what blocked the task is resolved (null: nothing here can tell). */
const BlockerOut = once(() =>
  z.object({ resolved: z.boolean().nullable(), upstream_task_id: z.number().int().nullable(), detail: z.string() }),
);

const UPDATABLE = [
  'title',
  'description',
  'priority',
  'acceptance_criteria',
  'depends_on',
  'tags',
  'context_files',
  'output_artifacts',
  'hints',
  'estimated_turns',
  'status',
  'blocked_by',
] as const;
export const updateTask = defineTool({
  name: 'update_task',
  title: 'Update task',
  category: 'tasks',
  description: 'Change only the given fields of a task (lists are replaced whole).',
  input: () =>
    z.strictObject({
      id: taskId(),
      title: text(LIMITS.title).optional(),
      ...z.object(taskFields()).partial().shape,
      status: status().optional().describe('done: dependencies first'),
      blocked_by: reason().optional().describe('What blocks it (sets status blocked)'),
    }),
  output: () =>
    z.object({
      task: TaskOut(),
      changed: z.array(z.string()),
      /** With status (or blocked_by): the status before, and what changing it found (as set_task_status says). */
      previous_status: z.string().optional(),
      blocker: BlockerOut().optional(),
      held_by: HolderOut().optional(),
      /** With blocked_by: the comment that records it. */
      comment: CommentOut().optional(),
    }),
  annotations: REPLACE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const { store } = ctx;
    const given = UPDATABLE.filter((f) => (args as Record<string, unknown>)[f] !== undefined);
    if (given.length === 0) throw invalid(`nothing to update: give at least one of ${UPDATABLE.join(', ')}`);
    const { id, status: wanted, blocked_by, ...changes } = args;
    if (blocked_by !== undefined && wanted !== undefined && wanted !== 'blocked')
      throw invalid(`blocked_by explains a blocked task; it cannot go with status ${wanted}`);
    loadTask(ctx, id);
    if (args.depends_on !== undefined) changes.depends_on = checkDependsOn(store, id, args.depends_on);
    if (args.context_files !== undefined) changes.context_files = checkContextFiles(ctx, args.context_files);
    if (given.some((f) => f !== 'status' && f !== 'blocked_by')) store.tasks.updateTask(id, changes);
    // The status last, through set_task_status's own rules: a refusal there rolls the fields back too.
    const next = blocked_by !== undefined ? 'blocked' : wanted;
    if (next === undefined) return { task: loadTask(ctx, id), changed: given };
    const { previous_status, blocker, held_by } = changeStatus(ctx, id, next, {
      override: "or set it with set_task_status's force: true and a reason",
    });
    const comment = blocked_by !== undefined ? recordBlocker(ctx, id, blocked_by, null) : undefined;
    return {
      task: loadTask(ctx, id),
      changed: given,
      previous_status,
      ...(blocker ? { blocker } : {}),
      ...(held_by ? { held_by } : {}),
      ...(comment ? { comment } : {}),
    };
  },
});

// ---- delete_task ---------------------------------------------------------------------------

export const deleteTask = defineTool({
  name: 'delete_task',
  title: 'Delete task',
  category: 'tasks',
  description: 'Delete a task and its comments. Refused while other tasks depend on it.',
  input: () => z.strictObject({ id: taskId() }),
  output: () => z.object({ deleted_id: z.number().int(), deleted_comments: z.number().int() }),
  annotations: DELETE,
  taskTarget: { arg: 'id', writes: true },
  handler({ id }, ctx) {
    loadTask(ctx, id);
    const dependents = ctx.store.tasks.dependentsOf(id);
    if (dependents.length > 0) {
      throw conflict(
        `task ${id} cannot be deleted: tasks ${dependents.join(', ')} depend on it; change their depends_on first`,
        { dependents },
      );
    }
    ctx.store.claims.dropClaim(id);
    return { deleted_id: id, deleted_comments: ctx.store.tasks.deleteTask(id) };
  },
});

// ---- set_task_status -----------------------------------------------------------------------

export const setTaskStatus = defineTool({
  name: 'set_task_status',
  title: 'Set task status',
  category: 'tasks',
  description: "Set a task's status. done needs its dependencies done, or force + reason (kept as a comment).",
  input: () =>
    z.strictObject({
      id: taskId(),
      status: status(),
      force: z.boolean().optional(),
      reason: reason().optional(),
    }),
  output: () =>
    z.object({
      task: TaskOut(),
      previous_status: z.string(),
      changed: z.boolean(),
      blocker: BlockerOut().optional(),
      /** done with force: the dependencies that were not done, and the comment that records it. */
      unfinished_dependencies: z.array(z.object({ id: z.number().int(), status: z.string() })).optional(),
      comment: CommentOut().optional(),
      /**
       * The task was in_progress under another session's claim (which this change ended unless it stays in_progress).
       */
      held_by: HolderOut().optional(),
    }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler({ id, status: next, force, reason: why }, ctx) {
    if ((force === true) !== (why !== undefined))
      throw invalid(
        'force and reason go together: force: true with a reason saying why the unfinished dependencies do not matter',
      );
    if (force && next !== 'done') throw invalid(`force only applies to status done (got status ${next})`);
    return changeStatus(ctx, id, next, {
      force: force === true ? why : undefined,
      override: 'or pass force: true with a reason',
    });
  },
});

interface StatusOptions {
  /** done over unfinished dependencies: why they do not matter (kept as a comment). */
  force?: string | undefined;
  /** How the caller can override the done gate, for its refusal. */
  override: string;
}

/**
 * A status change by set_task_status's rules, for every tool that sets a status: done only once the
 * dependencies are done (or forced, with a comment), a claim ended unless in_progress, a blocker's state
 * read on leaving blocked. Call inside a write transaction.
 */
export function changeStatus(ctx: ToolContext, id: number, next: (typeof TASK_STATUSES)[number], opts: StatusOptions) {
  const { store } = ctx;
  // The status alone first (cheap on either generation); the whole task is read once, for the answer.
  const before = requireTaskHead(store, id);
  if (before.status === next) return { task: loadTask(ctx, id), previous_status: before.status, changed: false };
  // Another session's claim: the change goes ahead (scope already decided who may), and says whose task it was.
  const held = holderOf(store, id, before.status);
  const heldByOther = held !== null && held.session_id !== ctx.session.sessionId ? held : undefined;
  // The rule claims follow too (store/ready.ts): a task is ready when every dependency is done.
  const unfinished = next === 'done' ? store.tasks.unfinishedDependencies(id, UNFINISHED_NAMED + 1) : [];
  const shown = namedUnfinished(unfinished);
  if (unfinished.length > 0 && opts.force === undefined) {
    throw conflict(
      `task ${id} depends on tasks that are not done: ${shown}. Finish them first, remove the dependency if it is wrong, ${opts.override}; nothing was changed`,
      {
        unfinished_dependencies: unfinished.slice(0, UNFINISHED_NAMED),
      },
    );
  }
  const blocker = before.status === 'blocked' ? blockerState(store, id) : undefined;
  store.tasks.setTaskStatus(id, next);
  if (next !== 'in_progress') store.claims.dropClaim(id);
  else leaseOnResume(ctx, id);
  const note =
    unfinished.length > 0
      ? sessionNote(ctx, id, `Set done with unfinished dependencies ${shown}: ${opts.force!}`, 'high')
      : undefined;
  return {
    task: loadTask(ctx, id),
    previous_status: before.status,
    changed: true,
    ...(blocker ? { blocker } : {}),
    ...(heldByOther ? { held_by: heldByOther } : {}),
    ...(note ? { unfinished_dependencies: unfinished.slice(0, UNFINISHED_NAMED), comment: note } : {}),
  };
}

/**
 * Marks a task blocked and records why, as a high-priority comment (and, on Ralph's legacy schema, its
 * blocked_by); the task's claim ends. Call inside a write transaction.
 */
export function recordBlocker(ctx: ToolContext, id: number, why: string, upstream: number | null): Comment {
  const comment = ctx.store.tasks.markBlocked(id, why, upstream, writerOf(ctx.session));
  ctx.store.claims.dropClaim(id);
  return comment;
}

/** Whether what blocked a task is resolved: an upstream task is once it is done; anything else nobody here can tell. */
function blockerState(
  store: RalphStore,
  id: number,
): { resolved: boolean | null; upstream_task_id: number | null; detail: string } {
  const b = store.tasks.blocker(id);
  if (b.upstream === null) {
    return {
      resolved: null,
      upstream_task_id: null,
      detail:
        b.detail === null
          ? 'no blocker was recorded'
          : `blocked on something outside the plan (${b.detail}); check that it is resolved`,
    };
  }
  const up = store.tasks.taskHead(b.upstream);
  if (!up)
    return {
      resolved: null,
      upstream_task_id: b.upstream,
      detail: `blocked on task #${b.upstream}, which no longer exists`,
    };
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
  input: () =>
    z.strictObject({
      id: taskId(),
      pseudocode: text(LIMITS.longText),
      acceptance_criteria: orSemicolons(strList()).optional().describe('Replaces the list'),
      context_files: orSemicolons(pathList('Replaces the list')).optional(),
    }),
  output: () => z.object({ task: TaskOut() }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler(args, ctx) {
    const task = loadTask(ctx, args.id);
    if (task.status !== 'draft') throw conflict(`task ${args.id} is ${task.status}; only draft tasks can be enriched`);
    const files = args.context_files !== undefined ? checkContextFiles(ctx, args.context_files) : undefined;
    ctx.store.tasks.enrichTask(args.id, args.pseudocode, args.acceptance_criteria, files);
    return { task: loadTask(ctx, args.id) };
  },
});

export const TASK_TOOLS = [listTasks, getTask, createTask, updateTask, deleteTask, setTaskStatus, enrichTask];
