import { z } from 'zod';
import { timestamp } from '../domain/rules.js';
import { MAX_ENTRY_CHARS, MAX_READ_BYTES, appendEntry, formatEntry, readEntries } from '../domain/stateFiles.js';
import { CREATE, READ, defineTool } from '../toolkit/tool.js';
import type { SessionScope, ToolContext } from '../toolkit/context.js';
import { sanitizeAgentText } from '../domain/learnings.js';
import { text } from './fields.js';
import { StateAppendOut, StateReadOut } from './shapes.js';

type Which = 'learnings' | 'progress';
const fileOf = (ctx: ToolContext, which: Which) =>
  which === 'learnings' ? ctx.project.learningsFile : ctx.project.progressFile;
const relName = (which: Which) => `.ralph/${which}.txt`;

/**
 * Who wrote an entry, as names for its header: recipe and discipline (sessionLabel's, as separate parts:
 * formatEntry quotes each one that is not a plain name, since a discipline may be named anything).
 */
const writerNames = (s: SessionScope): string[] => [s.recipe ?? 'ralph-mcp', ...(s.discipline ? [s.discipline] : [])];

function appendTool(which: Which, name: string, title: string, description: string) {
  return defineTool({
    name,
    title,
    category: 'state',
    description,
    input: () => z.strictObject({ text: text(MAX_ENTRY_CHARS) }),
    output: () => StateAppendOut(),
    annotations: CREATE,
    handler(args, ctx) {
      // learnings.txt goes into every future agent's prompt: sanitised like feature learnings (the
      // length cap stays this file's own). progress.txt is a log for Ralph and people: kept verbatim.
      const clean = which === 'learnings' ? sanitizeAgentText(args.text, MAX_ENTRY_CHARS) : null;
      const entry = formatEntry(
        clean ? clean.text : args.text,
        timestamp(),
        writerNames(ctx.session),
        ctx.session.taskId,
      );
      const bytes = appendEntry(ctx.project.root, fileOf(ctx, which), entry);
      return {
        file: relName(which),
        entry,
        bytes,
        ...(clean && clean.changes.length > 0 ? { sanitized: clean.changes } : {}),
      };
    },
  });
}

function readTool(which: Which, name: string, title: string, description: string) {
  return defineTool({
    name,
    title,
    category: 'state',
    description,
    input: () =>
      z.strictObject({
        last: z.number().int().min(1).max(1000).optional().describe('Last N entries (1-1000)'),
      }),
    output: () => StateReadOut(),
    annotations: READ,
    handler(args, ctx) {
      return { file: relName(which), ...readEntries(ctx.project.root, fileOf(ctx, which), args.last) };
    },
  });
}

export const appendLearning = appendTool(
  'learnings',
  'append_learning',
  'Append to learnings.txt',
  'Append a timestamped lesson for all future sessions to .ralph/learnings.txt.',
);
export const readLearnings = readTool(
  'learnings',
  'read_learnings',
  'Read learnings.txt',
  `Read .ralph/learnings.txt, whole or its last N entries (last ${MAX_READ_BYTES / 1024} KiB max).`,
);
export const appendProgress = appendTool(
  'progress',
  'append_progress',
  'Append to progress.txt',
  'Append a timestamped entry to .ralph/progress.txt (what was done, what is next).',
);
export const readProgress = readTool(
  'progress',
  'read_progress',
  'Read progress.txt',
  `Read .ralph/progress.txt, whole or its last N entries (last ${MAX_READ_BYTES / 1024} KiB max).`,
);

export const STATE_TOOLS = [appendLearning, readLearnings, appendProgress, readProgress];
