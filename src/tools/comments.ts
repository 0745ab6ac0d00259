import { z } from 'zod';
import { ToolError } from '../domain/errors.js';
import { CREATE, DELETE, REPLACE, defineTool } from '../toolkit/tool.js';
import { writerOf, type ToolContext } from '../toolkit/context.js';
import { LIMITS, priority, taskId, text } from './fields.js';
import { requireDiscipline, requireTaskExists } from './lookups.js';
import { CommentOut } from './shapes.js';
import type { Comment } from '../store/records.js';

const MAX_BODY = 10_000;

/** The author the server signs an agent's comment with: its discipline, else "agent" (never "human"). */
export const commentAuthor = (session: ToolContext['session']): string => session.discipline ?? 'agent';

/** A note this session leaves on a task in its own name (skips, splits, overrides). */
export function sessionNote(ctx: ToolContext, taskIdValue: number, body: string, prio: string | null = null): Comment {
  return ctx.store.comments.addComment(
    {
      task_id: taskIdValue,
      author: commentAuthor(ctx.session),
      discipline: ctx.session.discipline,
      agent_task_id: ctx.session.taskId,
      priority: prio,
      body,
    },
    writerOf(ctx.session),
  );
}

function requireComment(ctx: ToolContext, taskIdValue: number, commentId: number) {
  requireTaskExists(ctx.store, taskIdValue);
  const row = ctx.store.comments.getComment(taskIdValue, commentId);
  if (!row) {
    const ids = ctx.store.comments.commentIds(taskIdValue, 21);
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
  input: () =>
    z.strictObject({
      task_id: taskId(),
      body: text(MAX_BODY),
      discipline: z.string().max(LIMITS.name).optional().describe("Default: this session's"),
      priority: priority().optional(),
    }),
  output: () => z.object({ comment: CommentOut() }),
  annotations: CREATE,
  // Commenting on other tasks is allowed even in a task session (leaving a note for the next task).
  taskTarget: { arg: 'task_id', writes: false },
  handler(args, ctx) {
    const { store, session } = ctx;
    requireTaskExists(store, args.task_id);
    // Who wrote it is the server's to say, not the caller's: a comment signed "human" would be read as
    // a person's word. A session with a discipline comments as that discipline only.
    const discipline = args.discipline !== undefined ? requireDiscipline(store, args.discipline) : session.discipline;
    if (session.discipline !== null && discipline !== session.discipline) {
      throw new ToolError(
        'out_of_scope',
        `this session comments as discipline ${session.discipline}; it cannot sign a comment as ${JSON.stringify(args.discipline)}`,
      );
    }
    return {
      comment: store.comments.addComment(
        {
          task_id: args.task_id,
          author: commentAuthor(session),
          discipline,
          agent_task_id: session.taskId,
          priority: args.priority ?? null,
          body: args.body,
        },
        writerOf(session),
      ),
    };
  },
});

export const updateTaskComment = defineTool({
  name: 'update_task_comment',
  title: 'Edit comment',
  category: 'comments',
  description: 'Replace the body of an existing comment on a task.',
  input: () => z.strictObject({ task_id: taskId(), comment_id: z.number().int().positive(), body: text(MAX_BODY) }),
  output: () => z.object({ comment: CommentOut() }),
  annotations: REPLACE,
  taskTarget: { arg: 'task_id', writes: true },
  handler(args, ctx) {
    requireComment(ctx, args.task_id, args.comment_id);
    return { comment: ctx.store.comments.updateComment(args.task_id, args.comment_id, args.body) };
  },
});

export const deleteTaskComment = defineTool({
  name: 'delete_task_comment',
  title: 'Delete comment',
  category: 'comments',
  description: 'Delete a comment from a task.',
  input: () => z.strictObject({ task_id: taskId(), comment_id: z.number().int().positive() }),
  output: () => z.object({ deleted_id: z.number().int(), task_id: z.number().int() }),
  annotations: DELETE,
  taskTarget: { arg: 'task_id', writes: true },
  handler(args, ctx) {
    requireComment(ctx, args.task_id, args.comment_id);
    ctx.store.comments.deleteComment(args.task_id, args.comment_id);
    return { deleted_id: args.comment_id, task_id: args.task_id };
  },
});

export const COMMENT_TOOLS = [addTaskComment, updateTaskComment, deleteTaskComment];
