import type { Db, Row } from '../../db/database.js';
import { readySql } from '../ready.js';
import { hasSignalsTable } from './signals.js';
import { timestamp, today } from '../../domain/rules.js';
import { blockedComment } from '../../domain/dependencies.js';
import { legacyBlocker } from '../blocked.js';
import { listMirrorsUsable } from './listMirrors.js';
import { LIST_READ_MAX, namesTask, numberArray, requireJsonArray, toJson } from '../json.js';
import type { DependencyEdge } from '../../domain/dependencyProblems.js';
import { likePrefix } from '../like.js';
import type { Comment, TaskHead } from '../records.js';
import type { BlockedReads, TaskChanges, TaskInsert, TaskListQuery, TaskQuery, TaskStore, Writer } from '../store.js';
import {
  afterParams,
  afterSql,
  changedDay,
  changedSinceIndexed,
  countParams,
  countSql,
  fewRows,
  holderSql,
  inIdOrder,
  inList,
  priorityIn,
  orderSql,
  type ListColumns,
} from '../taskList.js';
import { claimTables } from '../own/claims.js';
import { insertComment } from './comments.js';
import { listedRow, taskFromRow } from '../taskRow.js';
import { cachedCount } from '../countCache.js';

/**
 * Tasks on the legacy generation: one `tasks` row each, lists as JSON arrays in TEXT columns, ids
 * max(id)+1 (Ralph's rule at 936f316), dates YYYY-MM-DD.
 */

/** The optional filters as fixed "column = @column" fragments: keys are ours, values always bound. */
const FILTER_COLUMNS = ['status', 'feature', 'discipline'] as const;
export function filterSql(q: TaskQuery, alias = ''): { params: Record<string, string>; clauses: string[] } {
  const keys = FILTER_COLUMNS.filter((k) => q[k] !== undefined);
  return {
    params: Object.fromEntries(keys.map((k) => [k, q[k]!])),
    clauses: keys.map((k) => `${alias ? `${alias}.` : ''}${k} = @${k}`),
  };
}

const LIST_COLUMNS: ListColumns = { id: 't.id', priority: 't.priority', updated: 't.updated', created: 't.created' };

/** What list_tasks' WHERE may read besides the task rows: our list mirrors and claim table, when there. */
interface ListSources {
  mirrors: boolean;
  claims: boolean;
}

/** list_tasks' WHERE: fixed fragments per filter key (keys ours), every value bound. */
function listWhere(q: TaskListQuery, src: ListSources): { clauses: string[]; params: Record<string, string | number> } {
  const clauses: string[] = [];
  const params: Record<string, string | number> = {};
  const add = (clause: string, p: Record<string, string | number> = {}) => {
    clauses.push(clause);
    Object.assign(params, p);
  };
  if (q.statuses !== undefined) {
    const l = inList('t.status', 'st', q.statuses);
    add(l.clause, l.params);
  }
  if (q.priorities !== undefined) {
    // As ranks (ralph_mcp_tasks_rank) alone; beside a status, feature or discipline filter the plain
    // column, which leaves the planner on those indexes.
    const l =
      q.statuses === undefined && q.feature === undefined && q.discipline === undefined
        ? priorityIn('t.priority', q.priorities)
        : inList('t.priority', 'pr', q.priorities);
    add(l.clause, l.params);
  }
  if (q.feature !== undefined) add('t.feature = @feature', { feature: q.feature });
  if (q.discipline !== undefined) add('t.discipline = @discipline', { discipline: q.discipline });
  // Tags as tag reads return them: the strings of the stored list (the mirror holds exactly those).
  if (q.tag !== undefined) {
    add(
      src.mirrors
        ? 't.id IN (SELECT task_id FROM ralph_mcp_task_tags WHERE tag = @tag)'
        : "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(t.tags) THEN t.tags ELSE '[]' END) g WHERE g.type = 'text' AND g.value = @tag)",
      { tag: q.tag },
    );
  }
  if (q.ready !== undefined) add(q.ready ? `(${READY_WHERE})` : `NOT (${READY_WHERE})`);
  if (q.holder !== undefined) {
    const h = holderSql(q.holder, { id: 't.id', status: 't.status' }, src.claims);
    add(h.clause, h.params);
  }
  if (q.updatedSince !== undefined)
    add(changedSinceIndexed(LIST_COLUMNS), { since_day: q.updatedSince.day, since_time: q.updatedSince.time });
  return { clauses, params };
}

function listSql(q: TaskListQuery, src: ListSources, what: 'page' | 'count', capped = false): string {
  const where = listWhere(q, src).clauses;
  const sort = q.sort ?? 'id';
  const few = fewRows(q);
  return what === 'count'
    ? countSql('tasks t', where.join(' AND ') || '1', capped)
    : `SELECT t.id, t.title, t.status, t.priority, t.feature, t.discipline, t.depends_on, ${changedDay(LIST_COLUMNS)} AS changed FROM tasks t
       WHERE ${[...afterSql(sort, LIST_COLUMNS, few), ...where].join(' AND ') || '1'} ORDER BY ${orderSql(sort, LIST_COLUMNS, few)} LIMIT CAST(@limit AS INTEGER)`;
}

/** The rows of some tasks (a JSON array of ids), as a list page reads them. */
const LISTED_BY_IDS = `SELECT t.id, t.title, t.status, t.priority, t.feature, t.discipline, t.depends_on, ${changedDay(LIST_COLUMNS)} AS changed FROM tasks t
  WHERE t.id IN (SELECT value FROM json_each(?))`;

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
] as const;
const JSON_COLUMNS = new Set<string>([
  'acceptance_criteria',
  'depends_on',
  'tags',
  'context_files',
  'output_artifacts',
]);
/** One fixed UPDATE per column: column names never come from input. */
const UPDATE_SQL: Record<(typeof UPDATABLE)[number], string> = Object.fromEntries(
  UPDATABLE.map((c) => [c, `UPDATE tasks SET ${c} = ? WHERE id = ?`]),
) as Record<(typeof UPDATABLE)[number], string>;

/**
 * The items `d` of task `t`'s depends_on, and which of them name a task, as get_task reads them (json.ts
 * numbersOf: 5, 5.0 and "5" name task 5; a list that is not an array holds none). Readiness, the
 * dependency doctor and the blocked view read the list this one way; other items name no task.
 */
export const DEP_ITEMS = `json_each(CASE WHEN json_valid(t.depends_on) AND json_type(t.depends_on) = 'array'
                                 THEN t.depends_on ELSE '[]' END) d`;
export const NAMES_TASK = `(d.type = 'integer' OR (d.type = 'real' AND d.value = CAST(d.value AS INTEGER))
            OR (d.type = 'text' AND d.value <> '' AND d.value NOT GLOB '*[^0-9]*'))`;

/**
 * A task `t` is ready (store/ready.ts): pending, every dependency done. The one condition of claims,
 * next_tasks and list_tasks' `ready` filter.
 */
export const READY_WHERE = `t.status = 'pending'
    -- A list longer than a read returns (json.ts) is not checked item by item on every claim: such a
    -- task is not offered (readiness of 300,000 dependencies cost every claim a full scan).
    AND coalesce(json_array_length(CASE WHEN json_valid(t.depends_on) THEN t.depends_on END), 0) <= ${LIST_READ_MAX}
    AND NOT EXISTS (
      SELECT 1 FROM ${DEP_ITEMS}
      LEFT JOIN tasks dep ON dep.id = CAST(d.value AS INTEGER)
      WHERE ${NAMES_TASK} AND dep.status IS NOT 'done')`;

/** A claim's pick and count (store/ready.ts): ready, in the filters. */
const READY_SQL = (withDiscipline: boolean, withFeature: boolean) =>
  readySql(
    'tasks t',
    't',
    'id',
    `${READY_WHERE}
    ${withDiscipline ? 'AND t.discipline = @discipline' : ''}
    ${withFeature ? 'AND t.feature = @feature' : ''}`,
  );

const listedTaskRow = (r: Row) => listedRow(r, false);

export function legacyTasks(db: Db): Omit<TaskStore, keyof BlockedReads | 'taskView'> {
  const storedList = (id: number, column: 'context_files' | 'depends_on'): unknown[] => {
    const sql =
      column === 'context_files'
        ? 'SELECT context_files AS v FROM tasks WHERE id = ?'
        : 'SELECT depends_on AS v FROM tasks WHERE id = ?';
    return requireJsonArray(db.get<{ v: unknown }>(sql, id)?.v, `tasks.${column} of task ${id}`);
  };
  const sources = (): ListSources => ({ mirrors: listMirrorsUsable(db), claims: claimTables(db) });
  return {
    getTask(id) {
      const row = db.get('SELECT * FROM tasks WHERE id = ?', id);
      return row ? taskFromRow(row) : undefined;
    },
    taskHead(id) {
      return db.get<TaskHead>('SELECT id, title, status, feature, discipline FROM tasks WHERE id = ?', id);
    },
    taskExists(id) {
      return db.get('SELECT 1 AS x FROM tasks WHERE id = ?', id) !== undefined;
    },
    taskIdRange() {
      return db.get<{ lo: number | null; hi: number | null; n: number }>(
        'SELECT min(id) AS lo, max(id) AS hi, count(*) AS n FROM tasks',
      )!;
    },
    listTasks(q, after, limit) {
      const src = sources();
      return db
        .all(listSql(q, src, 'page'), { ...listWhere(q, src).params, ...afterParams(q.sort ?? 'id', after), limit })
        .map(listedTaskRow);
    },
    listedTasks(ids) {
      if (ids.length === 0) return [];
      return inIdOrder(ids, db.all(LISTED_BY_IDS, JSON.stringify(ids)).map(listedTaskRow));
    },
    countTasks(q, max) {
      const src = sources();
      const sql = listSql(q, src, 'count', max !== undefined);
      const params = { ...listWhere(q, src).params, ...countParams(max) };
      return cachedCount(db, sql, params, () => db.get<{ n: number }>(sql, params)!.n);
    },
    dependenciesOf(id) {
      return numberArray(db.get<{ d: string }>('SELECT depends_on AS d FROM tasks WHERE id = ?', id)?.d);
    },
    dependentsOf(id, limit = -1) {
      // The mirror of ours (legacy/listMirrors.ts) once it can be trusted; before that, every task's list:
      // json_each keeps this exact, unlike a LIKE; CAST: an id stored as a string ("8") counts.
      const sql = listMirrorsUsable(db)
        ? 'SELECT task_id AS id FROM ralph_mcp_task_deps WHERE depends_on = ? AND task_id <> ? ORDER BY task_id LIMIT CAST(? AS INTEGER)'
        : "SELECT DISTINCT t.id FROM tasks t, json_each(CASE WHEN json_valid(t.depends_on) THEN t.depends_on ELSE '[]' END) d WHERE CAST(d.value AS INTEGER) = ? AND t.id <> ? ORDER BY t.id LIMIT CAST(? AS INTEGER)";
      // A loop, not map: the same kind of array whatever the rows (Db.all says why).
      const out: number[] = [];
      for (const r of db.all<{ id: number }>(sql, id, id, limit)) out.push(r.id);
      return out;
    },
    unfinishedDependencies(id, limit) {
      // The items that name a task (DEP_ITEMS), as readiness reads them; anything else is skipped.
      return db.all<{ id: number; status: string }>(
        `SELECT CAST(d.value AS INTEGER) AS id, coalesce(dep.status, 'missing') AS status
         FROM tasks t, ${DEP_ITEMS}
         LEFT JOIN tasks dep ON dep.id = CAST(d.value AS INTEGER)
         WHERE t.id = ? AND ${NAMES_TASK}
           AND dep.status IS NOT 'done'
         ORDER BY d.key LIMIT CAST(? AS INTEGER)`,
        id,
        limit,
      );
    },
    blocker(id) {
      const detail = db.get<{ b: string | null }>('SELECT blocked_by AS b FROM tasks WHERE id = ?', id)?.b ?? null;
      const last = db.get<{ body: string }>(
        "SELECT body FROM task_comments WHERE task_id = ? AND body LIKE 'Blocked: %' ORDER BY id DESC LIMIT 1",
        id,
      )?.body;
      return legacyBlocker(detail, last);
    },
    createTask(t: TaskInsert) {
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
          description: t.description,
          status: t.status,
          priority: t.priority,
          tags: toJson(t.tags),
          depends_on: toJson(t.depends_on),
          created: today(),
          acceptance_criteria: toJson(t.acceptance_criteria),
          context_files: toJson(t.context_files),
          output_artifacts: toJson(t.output_artifacts),
          hints: t.hints,
          estimated_turns: t.estimated_turns,
        },
      );
      return id;
    },
    updateTask(id, changes: TaskChanges) {
      for (const f of UPDATABLE) {
        const v = changes[f];
        if (v !== undefined) db.run(UPDATE_SQL[f], JSON_COLUMNS.has(f) ? toJson(v) : v, id);
      }
      db.run('UPDATE tasks SET updated = ? WHERE id = ?', today(), id);
    },
    setTaskStatus(id, next) {
      // `completed` means "is done": stamped on done, cleared when a task is reopened. `blocked_by` is
      // left alone: it is text a person or an agent wrote, the record of why the task was blocked.
      db.run(
        `UPDATE tasks SET status = @next, updated = @today,
           completed = CASE WHEN @next = 'done' THEN @today ELSE NULL END
         WHERE id = @id`,
        { id, next, today: today() },
      );
    },
    enrichTask(id, pseudocode, acceptance, contextFiles) {
      // Lists not given stay exactly as stored (coalesce): never rewrite Ralph's values from our reading.
      db.run(
        `UPDATE tasks SET pseudocode = @pseudocode, acceptance_criteria = coalesce(@ac, acceptance_criteria),
           context_files = coalesce(@cf, context_files), status = 'pending', enriched_at = @at, updated = @today WHERE id = @id`,
        {
          id,
          pseudocode,
          ac: acceptance !== undefined ? toJson(acceptance) : null,
          cf: contextFiles !== undefined ? toJson(contextFiles) : null,
          at: timestamp(),
          today: today(),
        },
      );
    },
    deleteTask(id) {
      if (hasSignalsTable(db)) db.run('DELETE FROM ralph_mcp_task_signals WHERE task_id = ?', id);
      const comments = db.run('DELETE FROM task_comments WHERE task_id = ?', id).changes;
      db.run('DELETE FROM tasks WHERE id = ?', id);
      return comments;
    },
    moveTask(id, feature) {
      db.run('UPDATE tasks SET feature = ?, updated = ? WHERE id = ?', feature, today(), id);
    },
    taskContextFileItems: (id) => storedList(id, 'context_files'),
    writeTaskContextFiles(id, items) {
      db.run('UPDATE tasks SET context_files = ?, updated = ? WHERE id = ?', toJson(items), today(), id);
    },
    dependencyItems: (id) => storedList(id, 'depends_on'),
    writeDependencyItems(id, items) {
      db.run('UPDATE tasks SET depends_on = ?, updated = ? WHERE id = ?', toJson(items), today(), id);
    },
    dependencyEdges() {
      // The items that name a task (DEP_ITEMS); others name none (and repair keeps them).
      return db.all<DependencyEdge>(
        `SELECT t.id AS task, CAST(d.value AS INTEGER) AS dep, t.status AS taskStatus, dep.status AS depStatus
         FROM tasks t, ${DEP_ITEMS}
         LEFT JOIN tasks dep ON dep.id = CAST(d.value AS INTEGER)
         WHERE ${NAMES_TASK}
         ORDER BY t.id, d.key`,
      );
    },
    removeDependencies(id, deps) {
      const items = storedList(id, 'depends_on');
      const kept = items.filter((x) => !deps.some((d) => namesTask(d)(x)));
      if (kept.length < items.length) db.run('UPDATE tasks SET depends_on = ? WHERE id = ?', toJson(kept), id);
      return items.length - kept.length;
    },
    markBlocked(id, reason, upstreamId, by: Writer): Comment {
      db.run(
        "UPDATE tasks SET status = 'blocked', blocked_by = ?, completed = NULL, updated = ? WHERE id = ?",
        reason,
        today(),
        id,
      );
      return insertComment(db, {
        task_id: id,
        author: by.discipline ?? 'agent',
        discipline: by.discipline,
        agent_task_id: id,
        priority: 'high',
        body: blockedComment(reason, upstreamId),
      });
    },
    pickReadyTask(q) {
      const params = Object.fromEntries(
        Object.entries({ discipline: q.discipline, feature: q.feature }).filter(([, v]) => v !== undefined),
      );
      const sql = READY_SQL(q.discipline !== undefined, q.feature !== undefined);
      const pick = db.get<{ id: number }>(sql.pick, params);
      return pick && { id: pick.id, ready: db.get<{ n: number }>(sql.count, params)!.n };
    },
    readyTasks(q, limit) {
      const params = Object.fromEntries(
        Object.entries({ discipline: q.discipline, feature: q.feature }).filter(([, v]) => v !== undefined),
      );
      return db
        .all<{ id: number }>(READY_SQL(q.discipline !== undefined, q.feature !== undefined).queue, { ...params, limit })
        .map((r) => r.id);
    },
    progressGroups() {
      // One pass, grouped: with ralph_mcp_tasks_progress (schema/ralph-mcp-legacy.sql) it reads only that index.
      return db.all<{ status: string; feature: string; discipline: string; n: number }>(
        'SELECT status, feature, discipline, count(*) AS n FROM tasks GROUP BY status, feature, discipline',
      );
    },
    completeTaskIds(prefix, limit) {
      return db
        .all<{ id: number }>(
          "SELECT id FROM tasks WHERE CAST(id AS TEXT) LIKE ? ESCAPE '\\' ORDER BY id LIMIT CAST(? AS INTEGER)",
          likePrefix(prefix),
          limit,
        )
        .map((r) => r.id);
    },
  };
}
