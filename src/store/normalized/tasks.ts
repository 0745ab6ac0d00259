import type { Db, Row } from '../../db/database.js';
import { readySql } from '../ready.js';
import { today } from '../../domain/rules.js';
import type { DependencyEdge } from '../../domain/dependencyProblems.js';
import { signalBlocker } from '../blocked.js';
import { LIST_READ_MAX, numberArray } from '../json.js';
import { listedRow, str, taskFromRow } from '../taskRow.js';
import { likePrefix } from '../like.js';
import type { Comment, Task, TaskHead } from '../records.js';
import type { BlockedReads, TaskChanges, TaskInsert, TaskListQuery, TaskStore, Writer } from '../store.js';
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
import { facetsUsable } from './facets.js';
import { insertSignal } from './signals.js';
import { DEPENDS_ON, TASK_COLUMNS, TASK_JOINS, detailsIdOf, disciplineId, hasOwnTables, subsystemId } from './sql.js';
import { cachedCount } from '../countCache.js';
import { TASK_ROW, TASK_ROW_HEAD, mirroredRow, recheck, rowsVersion } from './taskRows.js';

/**
 * Tasks on the normalized generation: a `task_details` row (what the task is), a `runtime_tasks` row (where
 * it stands; its never-reused id is the one agents see) and a child table per list, written in one transaction.
 * Only the six statuses Ralph's code reads are written, and Ralph's triggers may leave a time in `updated`.
 */

/** A task date as the day, whichever form a trigger left it in (a plain day, the usual case, as it is). */
export const day = (v: unknown): string | null => {
  const s = str(v);
  return s !== null && s.length > 10 && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(s) ? s.slice(0, 10) : s;
};

/** A task row of GET_TASK: the shared reading, dates as days, and the template it came from. */
export function taskOf(r: Row): Task {
  const task = taskFromRow(r, day);
  task.template = r.template_id != null ? { id: Number(r.template_id), title: String(r.template_title ?? '') } : null;
  return task;
}

const LIST_TABLES = {
  tags: ['task_tags', 'tag'],
  acceptance_criteria: ['task_acceptance_criteria', 'criterion'],
  context_files: ['task_context_files', 'file_path'],
  output_artifacts: ['task_output_artifacts', 'artifact_path'],
  depends_on: ['task_dependencies', 'depends_on_task_id'],
} as const;
type ListField = keyof typeof LIST_TABLES;
/** One fixed DELETE and INSERT per child table (names from the constant list above). */
const LIST_SQL = Object.fromEntries(
  Object.entries(LIST_TABLES).map(([field, [table, column]]) => [
    field,
    {
      clear: `DELETE FROM ${table} WHERE task_id = ?`,
      insert:
        field === 'acceptance_criteria'
          ? `INSERT INTO ${table} (task_id, ${column}, criterion_order) VALUES (?, ?, ?)`
          : `INSERT INTO ${table} (task_id, ${column}) VALUES (?, ?)`,
    },
  ]),
) as Record<ListField, { clear: string; insert: string }>;

const DETAIL_FIELDS = ['title', 'description', 'priority', 'hints', 'estimated_turns'] as const;
const DETAIL_SQL = Object.fromEntries(
  DETAIL_FIELDS.map((c) => [c, `UPDATE task_details SET ${c} = ? WHERE id = ?`]),
) as Record<(typeof DETAIL_FIELDS)[number], string>;

// A claim's pick and count (store/ready.ts), as on the legacy generation. The source is our facets
// mirror (one narrow row per task: status, subsystem, discipline, priority) once it can be trusted, else
// the runtime rows joined to their details (the same columns, under the same names; no index: slower).
const READY_SOURCE = {
  facets: 'ralph_mcp_task_facets f',
  joined:
    '(SELECT t.id AS task_id, t.status, t.subsystem_id, d.discipline_id, d.priority FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id) f',
} as const;
/**
 * A task is ready (store/ready.ts): pending, every dependency done. The one condition of claims,
 * next_tasks and list_tasks' `ready` filter, over a source whose status and task id are given.
 */
export const readyWhere = (status: string, id: string) => `${status} = 'pending'
    -- More dependency rows than a read returns (json.ts): not offered, as on the legacy generation
    -- (checking 300,000 rows on every claim); this probe reads at most LIST_READ_MAX + 1 index entries.
    AND NOT EXISTS (SELECT 1 FROM task_dependencies WHERE task_id = ${id} LIMIT 1 OFFSET ${LIST_READ_MAX})
    AND NOT EXISTS (
      SELECT 1 FROM task_dependencies dd JOIN runtime_tasks dep ON dep.id = dd.depends_on_task_id
      WHERE dd.task_id = ${id} AND dep.status <> 'done')`;
const READY_SQL = (source: keyof typeof READY_SOURCE, withDiscipline: boolean, withFeature: boolean) =>
  readySql(
    READY_SOURCE[source],
    'f',
    'task_id',
    `${readyWhere('f.status', 'f.task_id')}
    ${withDiscipline ? 'AND f.discipline_id = (SELECT id FROM disciplines WHERE name = @discipline)' : ''}
    ${withFeature ? 'AND f.subsystem_id = (SELECT id FROM subsystems WHERE name = @feature)' : ''}`,
  );

/** Tasks by status, subsystem and discipline in one grouped pass (over the facets' covering index when usable). */
const PROGRESS_SQL = {
  facets:
    'SELECT status, subsystem_id AS s, discipline_id AS di, count(*) AS n FROM ralph_mcp_task_facets GROUP BY status, subsystem_id, discipline_id',
  joined:
    'SELECT t.status, t.subsystem_id AS s, d.discipline_id AS di, count(*) AS n FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id GROUP BY t.status, t.subsystem_id, d.discipline_id',
} as const;

/** Where list_tasks reads a task's facets: the runtime and details rows, or our facets mirror. */
interface Facets extends ListColumns {
  status: string;
  subsystem: string;
  discipline: string;
}
const JOINED: Facets = {
  id: 't.id',
  status: 't.status',
  subsystem: 't.subsystem_id',
  discipline: 'd.discipline_id',
  priority: 'd.priority',
  updated: 't.updated',
  created: 't.created',
};
/** Dates are not mirrored: a query that filters or sorts by them reads JOINED (mirrorServes). */
const MIRROR: Facets = {
  id: 'f.task_id',
  status: 'f.status',
  subsystem: 'f.subsystem_id',
  discipline: 'f.discipline_id',
  priority: 'f.priority',
  updated: 'NULL',
  created: 'NULL',
};

/** What list_tasks may read besides Ralph's rows: the facets mirror and our claim table, when there. */
interface ListSources {
  facets: boolean;
  claims: boolean;
}

/**
 * list_tasks' WHERE: fixed fragments per filter key (keys ours, columns from the constants above), every value bound.
 */
function listWhere(
  q: TaskListQuery,
  c: Facets,
  src: ListSources,
  idOrder = false,
): { clauses: string[]; params: Record<string, string | number> } {
  const clauses: string[] = [];
  const params: Record<string, string | number> = {};
  const add = (clause: string, p: Record<string, string | number> = {}) => {
    clauses.push(clause);
    Object.assign(params, p);
  };
  if (q.statuses !== undefined) {
    // A page of one feature in id order walks the feature's index by id (the unary plus keeps SQLite
    // off the status index, which would sort every match first).
    const l = inList(c === MIRROR && idOrder && q.feature !== undefined ? `+${c.status}` : c.status, 'st', q.statuses);
    add(l.clause, l.params);
  }
  if (q.priorities !== undefined) {
    // As ranks alone (an index on them); beside a status, feature or discipline filter the plain column,
    // which leaves SQLite on the status/subsystem/discipline index (as on the legacy generation).
    const l =
      q.statuses === undefined && q.feature === undefined && q.discipline === undefined
        ? priorityIn(c.priority, q.priorities)
        : inList(c.priority, 'pr', q.priorities);
    add(l.clause, l.params);
  }
  if (q.feature !== undefined)
    add(`${c.subsystem} = (SELECT id FROM subsystems WHERE name = @feature)`, { feature: q.feature });
  if (q.discipline !== undefined)
    add(`${c.discipline} = (SELECT id FROM disciplines WHERE name = @discipline)`, { discipline: q.discipline });
  if (q.tag !== undefined) add(`${c.id} IN (SELECT task_id FROM task_tags WHERE tag = @tag)`, { tag: q.tag });
  if (q.ready !== undefined) {
    // A page in id order walks the mirror's rows by id rather than sorting every pending one: the unary
    // plus keeps SQLite off the status index.
    const status = c === MIRROR && idOrder ? `+${c.status}` : c.status;
    add(q.ready ? `(${readyWhere(status, c.id)})` : `NOT (${readyWhere(status, c.id)})`);
  }
  if (q.holder !== undefined) {
    const h = holderSql(q.holder, c, src.claims);
    add(h.clause, h.params);
  }
  if (q.updatedSince !== undefined)
    add(changedSinceIndexed(c), { since_day: q.updatedSince.day, since_time: q.updatedSince.time });
  return { clauses, params };
}

/** Whether the facets mirror answers the query alone: usable, and no date to filter or sort by. */
const mirrorServes = (q: TaskListQuery, src: ListSources): boolean =>
  src.facets && q.updatedSince === undefined && q.sort !== 'updated';

/**
 * Which rows a list statement reads: the narrow facets mirror for the count whenever no date is involved,
 * and for the page's ids as mirrorServes says; otherwise the runtime and details rows.
 */
const listSource = (q: TaskListQuery, src: ListSources, what: 'page' | 'count'): Facets =>
  mirrorServes(q, src) || (what === 'count' && src.facets && q.updatedSince === undefined) ? MIRROR : JOINED;

/** A page's columns, joined from Ralph's tables (the costly ones read for the page only, not every match). */
const JOINED_PAGE = `SELECT t.id, d.title, t.status, d.priority, s.name AS feature, di.name AS discipline, ${DEPENDS_ON} AS depends_on, t.template_id, ${changedDay(JOINED)} AS changed ${TASK_JOINS} WHERE t.id IN page`;
/** The same columns from our task-row mirror (taskRows.ts), where each page task has its row. */
const ROWS: ListColumns = { id: 'p.id', priority: 'r.priority', updated: 'r.updated', created: 'r.created' };
/**
 * The page from the task-row mirror, each of its tasks with the row it has there (`row_id` null: none, or
 * the schema is no longer the one the mirror was found whole in, @v): only a page whose every task has
 * its row is taken, else JOINED_PAGE is.
 */
const ROWS_PAGE = `SELECT p.id, r.task_id AS row_id, r.title, r.status, r.priority, r.feature, r.discipline, r.depends_on, r.template_id, ${changedDay(ROWS)} AS changed
  FROM page p LEFT JOIN ralph_mcp_task_rows r ON r.task_id = p.id AND (SELECT schema_version FROM pragma_schema_version) = @v`;

/** The "page" of listedTasks: some tasks, given as a JSON array of ids. */
const BY_IDS = 'WITH page(id) AS (SELECT value FROM json_each(@ids))';

/** A page's columns read straight from the task-row mirror (DIRECT_PAGE). */
const DIRECT: ListColumns = { id: 'r.task_id', priority: 'r.priority', updated: 'r.updated', created: 'r.created' };
/**
 * An unfiltered page in id order straight from the task-row mirror. While no task is queued its rows are
 * exactly the tasks Ralph's code shows (a row is deleted only with its task queued or gone; a fill makes
 * rows for visible tasks only), so the facets need not be walked first: a sixth of the page's cost at
 * 100,000 tasks. `queued`, read in the same statement, says whether that held; no row: the page is read as
 * before (the list's end, or a changed schema).
 */
const DIRECT_PAGE = `SELECT r.task_id AS id, r.title, r.status, r.priority, r.feature, r.discipline, r.depends_on, r.template_id, ${changedDay(DIRECT)} AS changed,
  EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale) AS queued
  FROM ralph_mcp_task_rows r WHERE r.task_id > @after AND (SELECT schema_version FROM pragma_schema_version) = @v
  ORDER BY r.task_id LIMIT CAST(@limit AS INTEGER)`;
const unfilteredById = (q: TaskListQuery): boolean =>
  (q.sort ?? 'id') === 'id' &&
  [q.statuses, q.feature, q.discipline, q.priorities, q.tag, q.ready, q.holder, q.updatedSince].every(
    (f) => f === undefined,
  );

function listSql(q: TaskListQuery, src: ListSources, what: 'page' | 'count', capped = false, rows = false): string {
  const c = listSource(q, src, what);
  const where = listWhere(q, c, src, what === 'page' && (q.sort ?? 'id') === 'id').clauses;
  if (what === 'count') {
    // Ralph's foreign keys guarantee the other joins; only a discipline or priority filter needs the details row.
    const from =
      c === MIRROR
        ? 'ralph_mcp_task_facets f'
        : q.discipline !== undefined || q.priorities !== undefined
          ? 'runtime_tasks t JOIN task_details d ON d.id = t.details_id'
          : 'runtime_tasks t';
    return countSql(from, where.join(' AND ') || '1', capped);
  }
  const sort = q.sort ?? 'id';
  const few = fewRows(q);
  const conditions = [...afterSql(sort, c, few), ...where].join(' AND ') || '1';
  // The page's ids first, then its rows: the costly columns (a dependency list per row, names by join)
  // are read for the page only, not for every match a sort has to see.
  const ids =
    c === MIRROR
      ? `SELECT f.task_id FROM ralph_mcp_task_facets f WHERE ${conditions} ORDER BY ${orderSql(sort, MIRROR, few)} LIMIT CAST(@limit AS INTEGER)`
      : `SELECT t.id FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id WHERE ${conditions} ORDER BY ${orderSql(sort, JOINED, few)} LIMIT CAST(@limit AS INTEGER)`;
  return `WITH page(id) AS (${ids}) ${rows ? ROWS_PAGE : JOINED_PAGE} ORDER BY ${orderSql(sort, rows ? ROWS : JOINED)}`;
}

// Built once: a statement's text is also its cache key (Db.stmt).
const GET_TASK = `SELECT ${TASK_COLUMNS} ${TASK_JOINS} WHERE t.id = ?`;
const TASK_HEAD = `SELECT t.id, d.title, t.status, s.name AS feature, di.name AS discipline ${TASK_JOINS} WHERE t.id = ?`;

const listedTaskRow = (r: Row) => listedRow(r, true);

export function normalizedTasks(db: Db): Omit<TaskStore, keyof BlockedReads | 'taskView'> {
  /**
   * A page from the task-row mirror: straight (an unfiltered page in id order), or the page's ids joined
   * to their rows when every one has its row; undefined when it must be read from Ralph's tables.
   */
  const pageFromRows = (
    q: TaskListQuery,
    src: ListSources,
    params: Record<string, unknown>,
    afterId: number,
    limit: number,
  ): Row[] | undefined => {
    const v = rowsVersion(db);
    if (v === undefined) return undefined;
    if (unfilteredById(q)) {
      const direct = db.all(DIRECT_PAGE, { after: afterId, limit, v });
      if (direct.length > 0 && direct[0]!.queued === 0) return direct;
    }
    const rows = db.all(listSql(q, src, 'page', false, true), { ...params, v });
    if (rows.every((r) => r.row_id !== null)) return rows;
    recheck(db);
    return undefined;
  };
  /** Replaces a task's list (a new task has none yet: nothing to clear). */
  const writeList = (taskId: number, field: ListField, items: readonly (string | number)[], fresh = false) => {
    if (!fresh) db.run(LIST_SQL[field].clear, taskId);
    items.forEach((item, i) => {
      if (field === 'acceptance_criteria') db.run(LIST_SQL[field].insert, taskId, item, i);
      else db.run(LIST_SQL[field].insert, taskId, item);
    });
  };
  const touch = (taskId: number) => db.run('UPDATE runtime_tasks SET updated = ? WHERE id = ?', today(), taskId);
  /**
   * The details row this task may change. A task pulled from a template shares the template's row
   * (Ralph's pull model), and Ralph's own update would rewrite the template and every task pulled from
   * it: the task gets a copy of its own first (copy on write); template_id still says where it came from.
   */
  const ownDetails = (taskId: number): number => {
    const detailsId = detailsIdOf(db, taskId);
    const shared = db.get(
      'SELECT 1 AS x WHERE EXISTS (SELECT 1 FROM task_templates WHERE details_id = @d) OR EXISTS (SELECT 1 FROM runtime_tasks WHERE details_id = @d AND id <> @t)',
      {
        d: detailsId,
        t: taskId,
      },
    );
    if (!shared) return detailsId;
    const copy = Number(
      db.run(
        `INSERT INTO task_details (discipline_id, title, description, priority, hints, estimated_turns, agent, model, effort, thinking, pseudocode, created, updated)
         SELECT discipline_id, title, description, priority, hints, estimated_turns, agent, model, effort, thinking, pseudocode, created, @today FROM task_details WHERE id = @d`,
        { d: detailsId, today: today() },
      ).lastInsertRowid,
    );
    db.run('UPDATE runtime_tasks SET details_id = ? WHERE id = ?', copy, taskId);
    return copy;
  };
  const storedList = (taskId: number, field: 'context_files' | 'depends_on'): unknown[] => {
    const sql =
      field === 'context_files'
        ? 'SELECT file_path AS v FROM task_context_files WHERE task_id = ? ORDER BY id'
        : 'SELECT depends_on_task_id AS v FROM task_dependencies WHERE task_id = ? ORDER BY id';
    return db.all<{ v: unknown }>(sql, taskId).map((r) => r.v);
  };

  const sources = (): ListSources => ({ facets: facetsUsable(db), claims: claimTables(db) });
  return {
    getTask(id) {
      const row = mirroredRow(db, TASK_ROW, { id }) ?? db.get(GET_TASK, id);
      return row ? taskOf(row) : undefined;
    },
    taskHead(id) {
      return (mirroredRow(db, TASK_ROW_HEAD, { id }) ?? db.get(TASK_HEAD, id)) as TaskHead | undefined;
    },
    taskExists(id) {
      return db.get('SELECT 1 AS x FROM runtime_tasks WHERE id = ?', id) !== undefined;
    },
    taskIdRange() {
      return db.get<{ lo: number | null; hi: number | null; n: number }>(
        'SELECT min(id) AS lo, max(id) AS hi, count(*) AS n FROM runtime_tasks',
      )!;
    },
    listTasks(q, after, limit) {
      const src = sources();
      const params = {
        ...listWhere(q, listSource(q, src, 'page'), src).params,
        ...afterParams(q.sort ?? 'id', after),
        limit,
      };
      const rows = pageFromRows(q, src, params, after?.id ?? 0, limit) ?? db.all(listSql(q, src, 'page'), params);
      return rows.map(listedTaskRow);
    },
    listedTasks(ids) {
      if (ids.length === 0) return [];
      const params = { ids: JSON.stringify(ids) };
      const v = rowsVersion(db);
      let rows = v === undefined ? undefined : db.all(`${BY_IDS} ${ROWS_PAGE}`, { ...params, v });
      if (rows && !rows.every((r) => r.row_id !== null)) {
        recheck(db);
        rows = undefined;
      }
      return inIdOrder(ids, (rows ?? db.all(`${BY_IDS} ${JOINED_PAGE}`, params)).map(listedTaskRow));
    },
    countTasks(q, max) {
      const src = sources();
      const sql = listSql(q, src, 'count', max !== undefined);
      const params = { ...listWhere(q, listSource(q, src, 'count'), src).params, ...countParams(max) };
      return cachedCount(db, sql, params, () => db.get<{ n: number }>(sql, params)!.n);
    },
    dependenciesOf(id) {
      return db
        .all<{ d: number }>('SELECT depends_on_task_id AS d FROM task_dependencies WHERE task_id = ? ORDER BY id', id)
        .map((r) => r.d);
    },
    dependentsOf(id, limit = -1) {
      return db
        .all<{ id: number }>(
          'SELECT DISTINCT task_id AS id FROM task_dependencies WHERE depends_on_task_id = ? AND task_id <> ? ORDER BY task_id LIMIT CAST(? AS INTEGER)',
          id,
          id,
          limit,
        )
        .map((r) => r.id);
    },
    unfinishedDependencies(id, limit) {
      return db.all<{ id: number; status: string }>(
        `SELECT dd.depends_on_task_id AS id, coalesce(dep.status, 'missing') AS status FROM task_dependencies dd
         LEFT JOIN runtime_tasks dep ON dep.id = dd.depends_on_task_id
         WHERE dd.task_id = ? AND dep.status IS NOT 'done' ORDER BY dd.id LIMIT CAST(? AS INTEGER)`,
        id,
        limit,
      );
    },
    blocker(id) {
      // Ralph's head has no blocked_by: the newest `blocked` signal says what blocks the task (report_blocker
      // writes one too, with "task #N" in `on` for an upstream task).
      const b = db.get<{ on: string; kind: string | null; detail: string | null }>(
        `SELECT "on", kind, detail FROM task_signals WHERE task_id = ? AND verb = 'blocked' ORDER BY id DESC LIMIT 1`,
        id,
      );
      return b ? signalBlocker(b.on, b.kind, b.detail) : { detail: null, upstream: null };
    },
    createTask(t: TaskInsert) {
      const now = today();
      const details = Number(
        db.run(
          `INSERT INTO task_details (discipline_id, title, description, priority, hints, estimated_turns, created)
           VALUES (@discipline_id, @title, @description, @priority, @hints, @estimated_turns, @created)`,
          {
            discipline_id: disciplineId(db, t.discipline),
            title: t.title,
            description: t.description,
            priority: t.priority,
            hints: t.hints,
            estimated_turns: t.estimated_turns,
            created: now,
          },
        ).lastInsertRowid,
      );
      const id = Number(
        db.run(
          "INSERT INTO runtime_tasks (subsystem_id, details_id, status, provenance, created) VALUES (?, ?, ?, 'agent', ?)",
          subsystemId(db, t.feature),
          details,
          t.status,
          now,
        ).lastInsertRowid,
      );
      writeList(id, 'tags', t.tags, true);
      writeList(id, 'depends_on', t.depends_on, true);
      writeList(id, 'acceptance_criteria', t.acceptance_criteria, true);
      writeList(id, 'context_files', t.context_files, true);
      writeList(id, 'output_artifacts', t.output_artifacts, true);
      return id;
    },
    updateTask(id, changes: TaskChanges) {
      const details = DETAIL_FIELDS.filter((f) => changes[f] !== undefined);
      if (details.length > 0) {
        const d = ownDetails(id);
        for (const f of details) db.run(DETAIL_SQL[f], changes[f], d);
        db.run('UPDATE task_details SET updated = ? WHERE id = ?', today(), d);
      }
      for (const f of ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'] as const) {
        const v = changes[f];
        if (v !== undefined) writeList(id, f, v);
      }
      touch(id);
    },
    setTaskStatus(id, next) {
      // `completed` means "is done": stamped on done (Ralph's CHECK requires it), cleared when reopened.
      db.run(
        `UPDATE runtime_tasks SET status = @next, updated = @today, completed = CASE WHEN @next = 'done' THEN @today ELSE NULL END WHERE id = @id`,
        { id, next, today: today() },
      );
    },
    enrichTask(id, pseudocode, acceptance, contextFiles) {
      const d = ownDetails(id);
      db.run('UPDATE task_details SET pseudocode = ?, updated = ? WHERE id = ?', pseudocode, today(), d);
      // Ralph stamps enriched_at as a day, like its other task dates.
      db.run("UPDATE runtime_tasks SET status = 'pending', enriched_at = @today, updated = @today WHERE id = @id", {
        id,
        today: today(),
      });
      if (acceptance !== undefined) writeList(id, 'acceptance_criteria', acceptance);
      if (contextFiles !== undefined) writeList(id, 'context_files', contextFiles);
    },
    deleteTask(id) {
      const signals = db.get<{ n: number }>('SELECT count(*) AS n FROM task_signals WHERE task_id = ?', id)!.n;
      if (hasOwnTables(db))
        db.run(
          'DELETE FROM ralph_mcp_comment_meta WHERE signal_id IN (SELECT id FROM task_signals WHERE task_id = ?)',
          id,
        );
      const detailsId = detailsIdOf(db, id);
      // Lists and signals go with the task (ON DELETE CASCADE); sessions keep their row, without the task.
      db.run('DELETE FROM runtime_tasks WHERE id = ?', id);
      // The details row goes too, unless a template or another task still uses it (Ralph leaves it).
      db.run(
        'DELETE FROM task_details WHERE id = @d AND NOT EXISTS (SELECT 1 FROM task_templates WHERE details_id = @d) AND NOT EXISTS (SELECT 1 FROM runtime_tasks WHERE details_id = @d)',
        {
          d: detailsId,
        },
      );
      return signals;
    },
    moveTask(id, feature) {
      db.run(
        'UPDATE runtime_tasks SET subsystem_id = ?, updated = ? WHERE id = ?',
        subsystemId(db, feature),
        today(),
        id,
      );
    },
    taskContextFileItems: (id) => storedList(id, 'context_files'),
    writeTaskContextFiles(id, items) {
      writeList(
        id,
        'context_files',
        items.filter((x): x is string => typeof x === 'string'),
      );
      touch(id);
    },
    dependencyItems: (id) => storedList(id, 'depends_on'),
    writeDependencyItems(id, items) {
      writeList(id, 'depends_on', [...new Set(numberArray(JSON.stringify(items)))]);
      touch(id);
    },
    dependencyEdges() {
      // Rows of a task that is gone too (written with foreign keys off): Ralph's readers never see them.
      return db.all<DependencyEdge>(
        `SELECT dd.task_id AS task, dd.depends_on_task_id AS dep, t.status AS taskStatus, dep.status AS depStatus
         FROM task_dependencies dd
         LEFT JOIN runtime_tasks t ON t.id = dd.task_id
         LEFT JOIN runtime_tasks dep ON dep.id = dd.depends_on_task_id
         ORDER BY dd.task_id, dd.id`,
      );
    },
    removeDependencies(id, deps) {
      let removed = 0;
      for (const d of deps)
        removed += db.run('DELETE FROM task_dependencies WHERE task_id = ? AND depends_on_task_id = ?', id, d).changes;
      return removed;
    },
    markBlocked(id, reason, upstreamId, by: Writer): Comment {
      db.run("UPDATE runtime_tasks SET status = 'blocked', completed = NULL, updated = ? WHERE id = ?", today(), id);
      // Ralph's head has no blocked_by: the nearest is a `blocked` signal, which is also what its agents send.
      const columns =
        upstreamId !== null
          ? { verb: 'blocked', on: `task #${upstreamId}`, kind: 'upstream_task', detail: reason }
          : { verb: 'blocked', on: reason, kind: 'external', detail: null };
      return insertSignal(db, by, id, columns, {
        author: by.discipline ?? 'agent',
        discipline: by.discipline,
        agent_task_id: id,
        priority: 'high',
      });
    },
    pickReadyTask(q) {
      const params = Object.fromEntries(
        Object.entries({ discipline: q.discipline, feature: q.feature }).filter(([, v]) => v !== undefined),
      );
      const sql = READY_SQL(
        facetsUsable(db) ? 'facets' : 'joined',
        q.discipline !== undefined,
        q.feature !== undefined,
      );
      const pick = db.get<{ id: number }>(sql.pick, params);
      return pick && { id: pick.id, ready: db.get<{ n: number }>(sql.count, params)!.n };
    },
    readyTasks(q, limit) {
      const params = Object.fromEntries(
        Object.entries({ discipline: q.discipline, feature: q.feature }).filter(([, v]) => v !== undefined),
      );
      const sql = READY_SQL(
        facetsUsable(db) ? 'facets' : 'joined',
        q.discipline !== undefined,
        q.feature !== undefined,
      );
      return db.all<{ id: number }>(sql.queue, { ...params, limit }).map((r) => r.id);
    },
    progressGroups() {
      // Grouped by ids, names looked up once.
      const features = new Map(
        db.all<{ id: number; name: string }>('SELECT id, name FROM subsystems').map((r) => [r.id, r.name]),
      );
      const disciplines = new Map(
        db.all<{ id: number; name: string }>('SELECT id, name FROM disciplines').map((r) => [r.id, r.name]),
      );
      return db
        .all<{ status: string; s: number; di: number; n: number }>(PROGRESS_SQL[facetsUsable(db) ? 'facets' : 'joined'])
        .map((r) => ({
          status: r.status,
          feature: features.get(r.s) ?? '',
          discipline: disciplines.get(r.di) ?? '',
          n: r.n,
        }));
    },
    completeTaskIds(prefix, limit) {
      return db
        .all<{ id: number }>(
          "SELECT id FROM runtime_tasks WHERE CAST(id AS TEXT) LIKE ? ESCAPE '\\' ORDER BY id LIMIT CAST(? AS INTEGER)",
          likePrefix(prefix),
          limit,
        )
        .map((r) => r.id);
    },
  };
}
