import type { Db, Row } from '../../db/database.js';
import { timestamp } from '../../domain/rules.js';
import { ToolError } from '../../domain/errors.js';
import { ensureOwnTables } from '../own/schema.js';
import { VERBS, VERB_COLUMNS } from '../../domain/signals.js';
import type { Comment } from '../records.js';
import type { CommentInsert, CommentStore, SignalStore, Writer } from '../store.js';
import { hasOwnTables } from './sql.js';
import { QUESTION_COLUMNS, questionFromRow, signalBody } from '../signalText.js';
import { NORMALIZED_MIRROR } from './facets.js';

/**
 * Comments on the normalized generation, stored as Ralph's head stores them so its UI shows them: a `learned`
 * signal with its `agent_sessions` row. What a signal has no column for (author, discipline, urgency) lives
 * in our ralph_mcp_comment_meta, keyed by the signal's id.
 */

/** agent_sessions.kind for a session of ours, by recipe. */
function sessionKind(recipe: string | null): 'task_execution' | 'review' | 'manual' {
  if (recipe === 'task_execution' || recipe === 'worker' || recipe === 'signals') return 'task_execution';
  if (recipe === 'opus_review') return 'review';
  return 'manual';
}

/**
 * The session's agent_sessions row, made the way Ralph makes a missing one: the next session_number,
 * started by an agent, finished, started = ended = now. A session Ralph already made is used as it is.
 * Only inside a write transaction (db.write), which keeps the lookup and the insert one step.
 */
export function ensureAgentSession(db: Db, by: Writer, taskId: number): void {
  // Looked up first: an INSERT that inserts nothing still opens the table and its five indexes for writing.
  if (db.get('SELECT 1 AS x FROM agent_sessions WHERE id = ?', by.sessionId)) return;
  const now = timestamp();
  db.run(
    `INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status)
     VALUES (@id, (SELECT coalesce(max(session_number), 0) + 1 FROM agent_sessions), @kind, 'agent', @task, @now, @now, 'finished')`,
    { id: by.sessionId, kind: sessionKind(by.recipe), task: by.taskId ?? taskId, now },
  );
}

/** The columns a comment view needs, with our metadata when its table exists (COMMENT_FIELDS: their names). */
const VIEW_COLUMNS = `sg.id, sg.task_id, sg.verb, sg.text, sg.summary, sg.remaining, sg.reason, sg.question, sg.what, sg."on",
  sg.severity, sg.category, sg.kind, sg.why, sg.detail, sg.answer, sg.created, a.started_by`;
/** The names of a comment view's columns, in order (the task view reads them as one JSON array per comment). */
export const COMMENT_FIELDS = `id, task_id, verb, text, summary, remaining, reason, question, what, "on", severity, category, kind, why, detail,
  answer, created, started_by, author, discipline, agent_task_id, priority`;
export const VIEW = {
  withMeta: `SELECT ${VIEW_COLUMNS}, m.author, m.discipline, m.agent_task_id, m.priority
    FROM task_signals sg LEFT JOIN agent_sessions a ON a.id = sg.session_id LEFT JOIN ralph_mcp_comment_meta m ON m.signal_id = sg.id`,
  plain: `SELECT ${VIEW_COLUMNS}, NULL AS author, NULL AS discipline, NULL AS agent_task_id, NULL AS priority
    FROM task_signals sg LEFT JOIN agent_sessions a ON a.id = sg.session_id`,
};
const SQL = {
  all: {
    withMeta: `${VIEW.withMeta} WHERE sg.task_id = ? ORDER BY sg.id`,
    plain: `${VIEW.plain} WHERE sg.task_id = ? ORDER BY sg.id`,
  },
  recent: {
    // Newest first (recentComments turns them): an outer ORDER BY costs SQLite a co-routine and a sorter.
    withMeta: `${VIEW.withMeta} WHERE sg.task_id = ? AND sg.id < ? ORDER BY sg.id DESC LIMIT CAST(? AS INTEGER)`,
    plain: `${VIEW.plain} WHERE sg.task_id = ? AND sg.id < ? ORDER BY sg.id DESC LIMIT CAST(? AS INTEGER)`,
  },
  one: {
    withMeta: `${VIEW.withMeta} WHERE sg.id = ? AND sg.task_id = ?`,
    plain: `${VIEW.plain} WHERE sg.id = ? AND sg.task_id = ?`,
  },
};
const variant = (db: Db) => (hasOwnTables(db) ? 'withMeta' : 'plain');

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function commentFromSignal(r: Row): Comment {
  return {
    id: Number(r.id),
    task_id: Number(r.task_id),
    // Ralph's own rule for a signal's author: who started its session.
    author: str(r.author) ?? str(r.started_by) ?? 'system',
    discipline: str(r.discipline),
    agent_task_id: typeof r.agent_task_id === 'number' ? r.agent_task_id : null,
    priority: str(r.priority),
    body: signalBody(r),
    created: str(r.created),
  };
}

function readOne(db: Db, taskId: number, signalId: number): Comment | undefined {
  const row = db.get(SQL.one[variant(db)], signalId, taskId);
  return row ? commentFromSignal(row) : undefined;
}

/** Who wrote a signal, as our metadata. Needs our tables (every write path makes them first). */
function writeMeta(
  db: Db,
  signalId: number,
  c: Pick<CommentInsert, 'author' | 'discipline' | 'agent_task_id' | 'priority'>,
): void {
  db.run(
    'INSERT INTO ralph_mcp_comment_meta (signal_id, author, discipline, agent_task_id, priority) VALUES (?, ?, ?, ?, ?)',
    signalId,
    c.author,
    c.discipline,
    c.agent_task_id,
    c.priority,
  );
}

/**
 * A signal of one verb with exactly that verb's columns and its session row. `meta` says who wrote it
 * in our ralph_mcp_comment_meta (comments and our own tools' signals); the eight verbs write none, so
 * their rows are exactly what Ralph's app writes for the same call.
 */
export function insertSignal(
  db: Db,
  by: Writer,
  taskId: number,
  columns: Record<string, string | number | null>,
  meta: Pick<CommentInsert, 'author' | 'discipline' | 'agent_task_id' | 'priority'> | null,
): Comment {
  ensureOwnTables(db, 'normalized', NORMALIZED_MIRROR);
  ensureAgentSession(db, by, taskId);
  const created = timestamp();
  const id = Number(
    db.run(insertSql(Object.keys(columns)), { ...columns, task_id: taskId, session_id: by.sessionId, created })
      .lastInsertRowid,
  );
  if (meta) writeMeta(db, id, meta);
  // What was just written, as a comment (reading it back through the joined view would only cost time).
  return {
    id,
    task_id: taskId,
    author: meta?.author ?? 'agent',
    discipline: meta?.discipline ?? null,
    agent_task_id: meta?.agent_task_id ?? null,
    priority: meta?.priority ?? null,
    body: signalBody(columns),
    created,
  };
}

/**
 * One fixed INSERT per column set we write: each verb's (domain/signals.ts) and a plain comment's.
 * Column names come only from these constant lists, never from input.
 */
const SHAPES: readonly (readonly string[])[] = [
  ...VERBS.map((v) => ['verb', ...VERB_COLUMNS[v]]),
  ['verb', 'text', 'kind', 'scope'],
];
const INSERT_SIGNAL = new Map(
  SHAPES.map((cols) => [
    cols.join(','),
    `INSERT INTO task_signals (task_id, session_id, ${cols.map((c) => `"${c}"`).join(', ')}, created) VALUES (@task_id, @session_id, ${cols.map((c) => `@${c}`).join(', ')}, @created)`,
  ]),
);
function insertSql(names: string[]): string {
  const sql = INSERT_SIGNAL.get(names.join(','));
  if (sql === undefined) throw new Error(`no signal INSERT for columns ${names.join(',')}`);
  return sql;
}

export function normalizedSignals(db: Db): SignalStore {
  return {
    addSignal(taskId, row, by) {
      const c = insertSignal(db, by, taskId, { verb: row.verb, ...row.columns }, null);
      return { id: c.id, created: c.created! };
    },
    questions(taskId) {
      return db
        .all(`SELECT ${QUESTION_COLUMNS} FROM task_signals WHERE task_id = ? AND verb = 'ask' ORDER BY id`, taskId)
        .map(questionFromRow);
    },
    question(signalId) {
      const row = db.get(`SELECT ${QUESTION_COLUMNS} FROM task_signals WHERE id = ? AND verb = 'ask'`, signalId);
      return row && questionFromRow(row);
    },
    answerQuestion(signalId, answer) {
      if (db.run("UPDATE task_signals SET answer = ? WHERE id = ? AND verb = 'ask'", answer, signalId).changes === 0)
        return undefined;
      return questionFromRow(db.get(`SELECT ${QUESTION_COLUMNS} FROM task_signals WHERE id = ?`, signalId)!);
    },
  };
}

export function normalizedComments(db: Db): CommentStore {
  return {
    comments(taskId) {
      return db.all(SQL.all[variant(db)], taskId).map(commentFromSignal);
    },
    recentComments(taskId, n, before = Number.MAX_SAFE_INTEGER) {
      return db.all(SQL.recent[variant(db)], taskId, before, n).map(commentFromSignal).reverse();
    },
    commentCount(taskId) {
      return db.get<{ n: number }>('SELECT count(*) AS n FROM task_signals WHERE task_id = ?', taskId)!.n;
    },
    getComment: (taskId, commentId) => readOne(db, taskId, commentId),
    commentIds(taskId, limit) {
      return db
        .all<{ id: number }>(
          'SELECT id FROM task_signals WHERE task_id = ? ORDER BY id LIMIT CAST(? AS INTEGER)',
          taskId,
          limit,
        )
        .map((r) => r.id);
    },
    addComment(c, by) {
      // As Ralph stores a person's comment: a learned signal, kind discovery, scope task.
      return insertSignal(db, by, c.task_id, { verb: 'learned', text: c.body, kind: 'discovery', scope: 'task' }, c);
    },
    updateComment(taskId, commentId, body) {
      const verb = db.get<{ verb: string }>(
        'SELECT verb FROM task_signals WHERE id = ? AND task_id = ?',
        commentId,
        taskId,
      )?.verb;
      if (verb !== 'learned') {
        throw new ToolError(
          'conflict',
          `comment ${commentId} on task ${taskId} is a "${verb}" signal, which Ralph keeps as the agent reported it; only plain comments (learned signals) can be edited`,
        );
      }
      db.run('UPDATE task_signals SET text = ? WHERE id = ?', body, commentId);
      return readOne(db, taskId, commentId)!;
    },
    deleteComment(taskId, commentId) {
      if (hasOwnTables(db)) db.run('DELETE FROM ralph_mcp_comment_meta WHERE signal_id = ?', commentId);
      db.run('DELETE FROM task_signals WHERE id = ? AND task_id = ?', commentId, taskId);
    },
  };
}
