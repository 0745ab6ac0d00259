import type { Db } from '../../db/database.js';
import { timestamp } from '../../domain/rules.js';
import type { Comment } from '../records.js';
import type { CommentInsert, CommentStore } from '../store.js';
import { commentFromRow } from './rows.js';

/** Comments on the legacy generation: `task_comments` rows, stamped RFC 3339 UTC. */

/** Inserts a comment stamped now and returns it. Call inside a write transaction. */
export function insertComment(db: Db, c: CommentInsert): Comment {
  const id = Number(
    db.run(
      'INSERT INTO task_comments (task_id, author, discipline, agent_task_id, priority, body, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      c.task_id,
      c.author,
      c.discipline,
      c.agent_task_id,
      c.priority,
      c.body,
      timestamp(),
    ).lastInsertRowid,
  );
  return commentFromRow(db.get('SELECT * FROM task_comments WHERE id = ?', id)!);
}

export function legacyComments(db: Db): CommentStore {
  return {
    comments(taskId) {
      return db.all('SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', taskId).map(commentFromRow);
    },
    recentComments(taskId, n, before = Number.MAX_SAFE_INTEGER) {
      // Newest first, turned here: an outer ORDER BY would cost SQLite a co-routine and a sorter.
      const rows = db.all(
        'SELECT * FROM task_comments WHERE task_id = ? AND id < ? ORDER BY id DESC LIMIT CAST(? AS INTEGER)',
        taskId,
        before,
        n,
      );
      // Turned in one loop: map's output and an empty result are other kinds of array (Db.all says why).
      const out: Comment[] = [];
      for (let i = rows.length - 1; i >= 0; i--) out.push(commentFromRow(rows[i]!));
      return out;
    },
    commentCount(taskId) {
      return db.get<{ n: number }>('SELECT count(*) AS n FROM task_comments WHERE task_id = ?', taskId)!.n;
    },
    getComment(taskId, commentId) {
      const row = db.get('SELECT * FROM task_comments WHERE id = ? AND task_id = ?', commentId, taskId);
      return row ? commentFromRow(row) : undefined;
    },
    commentIds(taskId, limit) {
      return db
        .all<{ id: number }>(
          'SELECT id FROM task_comments WHERE task_id = ? ORDER BY id LIMIT CAST(? AS INTEGER)',
          taskId,
          limit,
        )
        .map((r) => r.id);
    },
    addComment: (c) => insertComment(db, c),
    updateComment(_taskId, commentId, body) {
      db.run('UPDATE task_comments SET body = ? WHERE id = ?', body, commentId);
      return commentFromRow(db.get('SELECT * FROM task_comments WHERE id = ?', commentId)!);
    },
    deleteComment(_taskId, commentId) {
      db.run('DELETE FROM task_comments WHERE id = ?', commentId);
    },
  };
}
