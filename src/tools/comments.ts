import { z } from 'zod';
import type { Db } from '../db/database.js';
import { timestamp } from '../domain/rules.js';
import { ToolError } from '../errors.js';
import { CREATE, DELETE, REPLACE, defineTool } from '../registry/types.js';
import { LIMITS, priority, taskId, text } from './fields.js';
import { commentFromRow, requireDisciplineRow, requireTaskRow } from './rows.js';
import { CommentOut } from './shapes.js';

const MAX_BODY = 10_000;

function requireComment(db: Db, taskIdValue: number, commentId: number) {
  requireTaskRow(db, taskIdValue);
  const row = db.get('SELECT * FROM task_comments WHERE id = ? AND task_id = ?', commentId, taskIdValue);
  if (!row) {
    const ids = db.all<{ id: number }>('SELECT id FROM task_comments WHERE task_id = ? ORDER BY id LIMIT 21', taskIdValue).map((r) => r.id);
    throw new ToolError(
      'not_found',
      `comment ${commentId} does not exist on task ${taskIdValue}; ${ids.length ? `its comments: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''}` : 'it has no comments'}`,
    );
  }
  return row;
}

export const addTaskComment = defineTool({
  name: 'add_task_comment',
  title: 'Comment on task',
  category: 'comments',
  description: 'Add a comment to a task: findings, blockers, a completion summary, or a note for the next task.',
  input: z.strictObject({
    task_id: taskId(),
    author: text(LIMITS.name).describe('Who writes: your discipline name, or "human"'),
    body: text(MAX_BODY),
    discipline: z.string().max(LIMITS.name).optional().describe('Existing discipline name'),
    priority: priority.optional(),
  }),
  output: z.object({ comment: CommentOut }),
  annotations: CREATE,
  // Commenting on other tasks is allowed even in a task session (leaving a note for the next task).
  taskTarget: { arg: 'task_id', writes: false },
  handler(args, { db, session }) {
    requireTaskRow(db, args.task_id);
    const discipline = args.discipline ?? session.discipline;
    if (discipline != null) requireDisciplineRow(db, discipline);
    return {
      comment: insertComment(db, {
        task_id: args.task_id,
        author: args.author,
        discipline: discipline ?? null,
        agent_task_id: session.taskId,
        priority: args.priority ?? null,
        body: args.body,
      }),
    };
  },
});

export interface NewComment {
  task_id: number;
  author: string;
  discipline: string | null;
  agent_task_id: number | null;
  priority: string | null;
  body: string;
}

/** Inserts a comment stamped now (RFC 3339 UTC) and returns it. Call inside a write transaction. */
export function insertComment(db: Db, c: NewComment) {
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

export const updateTaskComment = defineTool({
  name: 'update_task_comment',
  title: 'Edit comment',
  category: 'comments',
  description: "Replace the body of an existing comment on a task.",
  input: z.strictObject({ task_id: taskId(), comment_id: z.number().int().positive(), body: text(MAX_BODY) }),
  output: z.object({ comment: CommentOut }),
  annotations: REPLACE,
  taskTarget: { arg: 'task_id', writes: true },
  handler(args, { db }) {
    requireComment(db, args.task_id, args.comment_id);
    db.run('UPDATE task_comments SET body = ? WHERE id = ?', args.body, args.comment_id);
    return { comment: commentFromRow(db.get('SELECT * FROM task_comments WHERE id = ?', args.comment_id)!) };
  },
});

export const deleteTaskComment = defineTool({
  name: 'delete_task_comment',
  title: 'Delete comment',
  category: 'comments',
  description: 'Delete a comment from a task.',
  input: z.strictObject({ task_id: taskId(), comment_id: z.number().int().positive() }),
  output: z.object({ deleted_id: z.number().int(), task_id: z.number().int() }),
  annotations: DELETE,
  taskTarget: { arg: 'task_id', writes: true },
  handler(args, { db }) {
    requireComment(db, args.task_id, args.comment_id);
    db.run('DELETE FROM task_comments WHERE id = ?', args.comment_id);
    return { deleted_id: args.comment_id, task_id: args.task_id };
  },
});

export const COMMENT_TOOLS = [addTaskComment, updateTaskComment, deleteTaskComment];
