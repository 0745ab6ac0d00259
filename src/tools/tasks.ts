import { z } from 'zod';
import type { Db } from '../db/database.js';
import { numberArray, toJson } from '../db/json.js';
import { timestamp, today } from '../domain/rules.js';
import { conflict, invalid } from '../errors.js';
import { CREATE, DELETE, READ, REPLACE, UPDATE, defineTool, type ToolContext } from '../registry/types.js';
import { checkContextFiles, checkDependsOn } from './validate.js';
import { taskFilters, type TaskFilters } from './taskFilters.js';
import { LIMITS, optText, pathList, priority, status, strList, taskId, text } from './fields.js';
import { commentFromRow, requireDisciplineRow, requireFeatureRow, requireTaskRow, taskFromRow } from './rows.js';
import { CommentOut, TaskOut, TaskRowOut } from './shapes.js';

export const loadTask = (db: Db, id: number) => taskFromRow(requireTaskRow(db, id));

// ---- list_tasks ----------------------------------------------------------------------------

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;

function listSql(filters: TaskFilters, what: 'page' | 'count'): string {
  const where = filters.clauses();
  return what === 'count'
    ? `SELECT count(*) AS n FROM tasks WHERE ${where.join(' AND ') || '1'}`
    : `SELECT id, title, status, priority, feature, discipline, depends_on FROM tasks WHERE ${['id > @after', ...where].join(' AND ')} ORDER BY id LIMIT @limit`;
}

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
  output: z.object({ tasks: z.array(TaskRowOut), total: z.number().int(), next_cursor: z.string().nullable() }),
  annotations: READ,
  handler(args, { db }) {
    const filters = taskFilters(db, { status: args.filter_status, feature: args.filter_feature, discipline: args.filter_discipline });
    let after = 0;
    if (args.cursor !== undefined) {
      if (!/^\d{1,15}$/.test(args.cursor)) throw invalid('cursor is not one this server returned; omit it to start from the first page');
      after = Number(args.cursor);
    }
    const limit = args.limit ?? PAGE_DEFAULT;
    const rows = db.all(listSql(filters, 'page'), { ...filters.params, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const total = db.get<{ n: number }>(listSql(filters, 'count'), filters.params)!.n;
    return {
      tasks: page.map((r) => ({
        id: Number(r.id),
        title: String(r.title),
        status: String(r.status),
        priority: typeof r.priority === 'string' ? r.priority : null,
        feature: String(r.feature),
        discipline: String(r.discipline),
        depends_on: numberArray(r.depends_on),
      })),
      total,
      next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
    };
  },
});

// ---- get_task ------------------------------------------------------------------------------

export const getTask = defineTool({
  name: 'get_task',
  title: 'Get task',
  category: 'tasks',
  description: "One task in full: fields, comments (oldest first), and each dependency's id, title and status.",
  input: z.strictObject({ id: taskId() }),
  output: z.object({
    task: TaskOut,
    comments: z.array(CommentOut),
    dependencies: z.array(z.object({ id: z.number().int(), title: z.string().nullable(), status: z.string() })),
  }),
  annotations: READ,
  taskTarget: { arg: 'id', writes: false },
  handler({ id }, { db }) {
    const task = loadTask(db, id);
    const comments = db.all('SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', id).map(commentFromRow);
    const dependencies = task.depends_on.map((dep) => {
      const r = db.get<{ title: string; status: string }>('SELECT title, status FROM tasks WHERE id = ?', dep);
      return r ? { id: dep, title: r.title, status: r.status } : { id: dep, title: null, status: 'missing' };
    });
    return { task, comments, dependencies };
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
  }),
  output: z.object({ task: TaskOut }),
  annotations: CREATE,
  handler(args, ctx) {
    return { task: loadTask(ctx.db, insertTask(ctx, args)) };
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

/** Checks and inserts one task; returns its id. Call inside a write transaction. */
export function insertTask(ctx: ToolContext, t: NewTask): number {
  const { db } = ctx;
  requireFeatureRow(db, t.feature);
  requireDisciplineRow(db, t.discipline);
  const deps = checkDependsOn(db, null, t.depends_on ?? []);
  const contextFiles = checkContextFiles(ctx, t.context_files ?? []);
  // Ralph's rule: ids are max(id)+1, taken inside the write lock so two writers never collide.
  const id = db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM tasks')!.id;
  db.run(
    `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, tags, depends_on, created,
       acceptance_criteria, context_files, output_artifacts, hints, estimated_turns, provenance)
     VALUES (@id, @feature, @discipline, @title, @description, @status, @priority, @tags, @depends_on, @created,
       @acceptance_criteria, @context_files, @output_artifacts, @hints, @estimated_turns, 'agent')`,
    {
      id,
      feature: t.feature,
      discipline: t.discipline,
      title: t.title,
      description: t.description ?? null,
      status: t.status ?? 'pending',
      priority: t.priority ?? null,
      tags: toJson(t.tags ?? []),
      depends_on: toJson(deps),
      created: today(),
      acceptance_criteria: toJson(t.acceptance_criteria ?? []),
      context_files: toJson(contextFiles),
      output_artifacts: toJson(t.output_artifacts ?? []),
      hints: t.hints ?? null,
      estimated_turns: t.estimated_turns ?? null,
    },
  );
  return id;
}

// ---- update_task ---------------------------------------------------------------------------

const UPDATABLE = ['title', 'description', 'priority', 'acceptance_criteria', 'depends_on', 'tags', 'context_files', 'output_artifacts', 'hints', 'estimated_turns'] as const;
const JSON_COLUMNS = new Set(['acceptance_criteria', 'depends_on', 'tags', 'context_files', 'output_artifacts']);

/** One fixed UPDATE per column: column names never come from input. */
const UPDATE_SQL: Record<(typeof UPDATABLE)[number], string> = Object.fromEntries(
  UPDATABLE.map((c) => [c, `UPDATE tasks SET ${c} = ? WHERE id = ?`]),
) as Record<(typeof UPDATABLE)[number], string>;

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
    const { db } = ctx;
    const given = UPDATABLE.filter((f) => (args as Record<string, unknown>)[f] !== undefined);
    if (given.length === 0) throw invalid(`nothing to update: give at least one of ${UPDATABLE.join(', ')}`);
    requireTaskRow(db, args.id);
    const values: Record<string, unknown> = { ...args };
    if (args.depends_on !== undefined) values.depends_on = checkDependsOn(db, args.id, args.depends_on);
    if (args.context_files !== undefined) values.context_files = checkContextFiles(ctx, args.context_files);
    for (const f of given) {
      const v = values[f];
      db.run(UPDATE_SQL[f], JSON_COLUMNS.has(f) ? toJson(v) : v, args.id);
    }
    db.run('UPDATE tasks SET updated = ? WHERE id = ?', today(), args.id);
    return { task: loadTask(db, args.id), changed: given };
  },
});

// ---- delete_task ---------------------------------------------------------------------------

/** Tasks whose depends_on names `id` (json_each keeps this exact; a LIKE would match 1 in 12). */
export const dependentsOf = (db: Db, id: number): number[] =>
  db
    .all<{ id: number }>(
      // CAST: an id stored as a string ("8") still counts as a reference.
      "SELECT DISTINCT t.id FROM tasks t, json_each(CASE WHEN json_valid(t.depends_on) THEN t.depends_on ELSE '[]' END) d WHERE CAST(d.value AS INTEGER) = ? AND t.id <> ? ORDER BY t.id",
      id,
      id,
    )
    .map((r) => r.id);

export const deleteTask = defineTool({
  name: 'delete_task',
  title: 'Delete task',
  category: 'tasks',
  description: 'Delete a task and its comments. Refused while other tasks depend on it.',
  input: z.strictObject({ id: taskId() }),
  output: z.object({ deleted_id: z.number().int(), deleted_comments: z.number().int() }),
  annotations: DELETE,
  taskTarget: { arg: 'id', writes: true },
  handler({ id }, { db }) {
    requireTaskRow(db, id);
    const dependents = dependentsOf(db, id);
    if (dependents.length > 0) {
      throw conflict(`task ${id} cannot be deleted: tasks ${dependents.join(', ')} depend on it; change their depends_on first`, { dependents });
    }
    const comments = db.run('DELETE FROM task_comments WHERE task_id = ?', id).changes;
    db.run('DELETE FROM tasks WHERE id = ?', id);
    return { deleted_id: id, deleted_comments: comments };
  },
});

// ---- set_task_status -----------------------------------------------------------------------

export const setTaskStatus = defineTool({
  name: 'set_task_status',
  title: 'Set task status',
  category: 'tasks',
  description: 'Set a task\'s status. done stamps the completion date.',
  input: z.strictObject({ id: taskId(), status }),
  output: z.object({ task: TaskOut, previous_status: z.string(), changed: z.boolean() }),
  annotations: UPDATE,
  taskTarget: { arg: 'id', writes: true },
  handler({ id, status: next }, { db }) {
    const before = loadTask(db, id);
    if (before.status === next) return { task: before, previous_status: before.status, changed: false };
    // `completed` means "is done": stamped on done, cleared when a task is reopened. `blocked_by` is
    // left alone: it is text a person or an agent wrote, the record of why the task was blocked.
    db.run(
      `UPDATE tasks SET status = @next, updated = @today,
         completed = CASE WHEN @next = 'done' THEN @today ELSE NULL END
       WHERE id = @id`,
      { id, next, today: today() },
    );
    return { task: loadTask(db, id), previous_status: before.status, changed: true };
  },
});

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
    const { db } = ctx;
    const task = loadTask(db, args.id);
    if (task.status !== 'draft') throw conflict(`task ${args.id} is ${task.status}; only draft tasks can be enriched`);
    // Lists not given stay exactly as stored (coalesce): never rewrite Ralph's values from our reading.
    const files = args.context_files !== undefined ? toJson(checkContextFiles(ctx, args.context_files)) : null;
    db.run(
      `UPDATE tasks SET pseudocode = @pseudocode, acceptance_criteria = coalesce(@ac, acceptance_criteria),
         context_files = coalesce(@cf, context_files), status = 'pending', enriched_at = @at, updated = @today WHERE id = @id`,
      {
        id: args.id,
        pseudocode: args.pseudocode,
        ac: args.acceptance_criteria !== undefined ? toJson(args.acceptance_criteria) : null,
        cf: files,
        at: timestamp(),
        today: today(),
      },
    );
    return { task: loadTask(db, args.id) };
  },
});

export const TASK_TOOLS = [listTasks, getTask, createTask, updateTask, deleteTask, setTaskStatus, enrichTask];
