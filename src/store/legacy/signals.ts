import type { Db } from '../../db/database.js';
import { VERBS, VERB_COLUMNS } from '../../domain/signals.js';
import { ensureOwnTables } from '../own/schema.js';
import { QUESTION_COLUMNS, questionFromRow, signalBody } from '../signalText.js';
import type { SignalStore } from '../store.js';
import { insertComment } from './comments.js';
import { LEGACY_MIRROR } from './listMirrors.js';

/**
 * Signals on the legacy generation (see SignalStore): a ralph_mcp_task_signals row with the verb's
 * columns, and a task comment showing it, written together. A blocking question or flag, and being
 * stuck or blocked, is a high-priority comment, so it stands out where a person reads comments.
 */

const URGENT = (verb: string, c: Record<string, unknown>) =>
  verb === 'stuck' ||
  verb === 'blocked' ||
  (verb === 'ask' && c.blocking === 1) ||
  (verb === 'flag' && c.severity === 'blocking');

/** One fixed INSERT per verb (domain/signals.ts): column names from that constant list only. */
const INSERT_SIGNAL = new Map(
  VERBS.map((verb) => {
    const cols = ['task_id', 'session_id', 'verb', ...VERB_COLUMNS[verb], 'comment_id', 'created'];
    return [
      verb,
      `INSERT INTO ralph_mcp_task_signals (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
    ];
  }),
);

/** Connections known to have our signals table (it is never dropped while a connection is open). */
const seen = new WeakSet<Db>();
export function hasSignalsTable(db: Db): boolean {
  if (seen.has(db)) return true;
  const found =
    db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_task_signals'") !== undefined;
  if (found) seen.add(db);
  return found;
}

export function legacySignals(db: Db): SignalStore {
  return {
    addSignal(taskId, row, by) {
      ensureOwnTables(db, 'legacy', LEGACY_MIRROR);
      const comment = insertComment(db, {
        task_id: taskId,
        author: by.discipline ?? 'agent',
        discipline: by.discipline,
        agent_task_id: by.taskId,
        priority: URGENT(row.verb, row.columns) ? 'high' : null,
        body: signalBody({ verb: row.verb, ...row.columns }),
      });
      const created = comment.created!;
      const params = {
        ...row.columns,
        task_id: taskId,
        session_id: by.sessionId,
        verb: row.verb,
        comment_id: comment.id,
        created,
      };
      const id = Number(db.run(INSERT_SIGNAL.get(row.verb)!, params).lastInsertRowid);
      return { id, created };
    },
    questions(taskId) {
      if (!hasSignalsTable(db)) return [];
      const rows = db.all(
        `SELECT ${QUESTION_COLUMNS} FROM ralph_mcp_task_signals WHERE task_id = ? AND verb = 'ask' ORDER BY id`,
        taskId,
      );
      return rows.length === 0 ? [] : rows.map(questionFromRow); // [] first: Db.all says why
    },
    question(signalId) {
      if (!hasSignalsTable(db)) return undefined;
      const row = db.get(
        `SELECT ${QUESTION_COLUMNS} FROM ralph_mcp_task_signals WHERE id = ? AND verb = 'ask'`,
        signalId,
      );
      return row && questionFromRow(row);
    },
    answerQuestion(signalId, answer) {
      if (!hasSignalsTable(db)) return undefined;
      const row = db.get<{ comment_id: number | null; question: string }>(
        "SELECT comment_id, question FROM ralph_mcp_task_signals WHERE id = ? AND verb = 'ask'",
        signalId,
      );
      if (!row) return undefined;
      db.run('UPDATE ralph_mcp_task_signals SET answer = ? WHERE id = ?', answer, signalId);
      // The comment a person reads shows the answer too, worded as on the normalized generation.
      if (row.comment_id !== null)
        db.run(
          'UPDATE task_comments SET body = ? WHERE id = ?',
          signalBody({ verb: 'ask', question: row.question, answer }),
          row.comment_id,
        );
      return questionFromRow(db.get(`SELECT ${QUESTION_COLUMNS} FROM ralph_mcp_task_signals WHERE id = ?`, signalId)!);
    },
  };
}
