import { z } from 'zod';
import {
  AFTER,
  BLOCKED_KINDS,
  FLAG_CATEGORIES,
  FLAG_SEVERITIES,
  LEARNED_KINDS,
  LEARNED_SCOPE_INPUTS,
  SUGGEST_KINDS,
  signalRow,
  type SignalPayload,
  type Verb,
} from '../domain/signals.js';
import { once, CREATE, READ, defineTool, type AnyTool } from '../toolkit/tool.js';
import { writerOf, type ToolContext } from '../toolkit/context.js';
import { LIMITS, taskId, text } from './fields.js';
import { requireTaskExists, sessionTask } from './lookups.js';
import { QuestionOut } from './shapes.js';

/**
 * Ralph's eight signal verbs, shaped exactly as the signal server Ralph launches so its prompts work
 * unchanged. They only record a signal, never change the task's status (Ralph's loop decides), so a signal
 * written here and one Ralph's app writes leave the same rows.
 */

/** One line of an `ask`'s options: Ralph stores them joined by newlines. */
const option = once(() =>
  z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.listItem)
    .refine((o) => !/[\r\n]/.test(o), 'an option must be one line (options are stored one per line)'),
);
const optional = (desc: string) => z.string().max(LIMITS.text).optional().describe(desc);

export const SignalOut = once(() =>
  z.object({
    message: z.string(),
    verb: z.string(),
    task_id: z.number().int(),
    /** null when Ralph's app recorded it (it does not say which row it wrote). */
    signal_id: z.number().int().nullable(),
    next: z.string(),
  }),
);

/** Optional texts are trimmed, and left out when nothing remains (Ralph would store an empty string). */
function clean(args: Record<string, unknown>): SignalPayload {
  const out: SignalPayload = {};
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined) continue;
    if (typeof v === 'string') {
      const t = v.trim();
      if (t !== '') out[k] = t;
    } else out[k] = v as boolean | string[];
  }
  return out;
}

/**
 * ask's answer adds what a person answered at once, in the client (server/askInClient.ts); absent
 * otherwise (the answer comes later).
 */
export const AskOut = once(() => SignalOut().extend({ answer: z.string().optional() }));

function verbTool<S extends z.ZodRawShape>(
  verb: Verb,
  title: string,
  description: string,
  shape: () => S,
  { payload = (p) => p, output = SignalOut }: VerbOptions = {},
): AnyTool {
  return defineTool({
    name: verb,
    title,
    category: 'signals',
    description,
    input: () => z.strictObject(shape()),
    output,
    annotations: CREATE,
    handler(args, ctx: ToolContext) {
      const id = sessionTask(ctx, verb);
      requireTaskExists(ctx.store, id);
      const { id: signalId } = ctx.store.signals.addSignal(
        id,
        signalRow(verb, payload(clean(args as Record<string, unknown>))),
        writerOf(ctx.session),
      );
      return signalAnswer(verb, id, signalId);
    },
    async forwarded(args, ctx, forward) {
      const id = sessionTask(ctx, verb);
      requireTaskExists(ctx.store, id);
      await forward.send(id, verb, payload(clean(args as Record<string, unknown>)));
      return signalAnswer(verb, id, null);
    },
  });
}

interface VerbOptions {
  /** The payload as Ralph stores it (defaults, synonyms). */
  payload?: (p: SignalPayload) => SignalPayload;
  output?: () => z.ZodObject;
}

const signalAnswer = (verb: Verb, taskId: number, signalId: number | null): z.infer<ReturnType<typeof SignalOut>> => ({
  message: `Signal recorded: ${verb}`,
  verb,
  task_id: taskId,
  signal_id: signalId,
  next: AFTER[verb],
});

export const done = verbTool('done', 'Done', 'The task is complete and tested. Your last call.', () => ({
  summary: text().describe('What was accomplished: key decisions and outcomes'),
}));

export const partial = verbTool('partial', 'Partial', 'Progress made, task not complete. Your last call.', () => ({
  summary: text().describe('What was accomplished so far'),
  remaining: text().describe('What is left, and why you stopped'),
}));

export const stuck = verbTool(
  'stuck',
  'Stuck',
  'You cannot make progress (broken environment, impossible task); Ralph ends the session.',
  () => ({
    reason: text().describe('What stops you, specifically'),
  }),
);

export const ask = verbTool(
  'ask',
  'Ask',
  'Ask a person a question; if blocking, stop after asking.',
  () => ({
    question: text().describe('The specific question'),
    options: z.array(option()).max(20).optional().describe('Possible answers'),
    preferred: optional('Your recommendation'),
    blocking: z.boolean().describe('You cannot go on without the answer'),
  }),
  { output: AskOut },
);

export const flag = verbTool(
  'flag',
  'Flag',
  'Report a problem you found (for a reviewer); go on unless it blocks the task.',
  () => ({
    what: text().describe('The problem, clearly'),
    severity: z.enum(FLAG_SEVERITIES).describe('blocking: this task cannot be completed'),
    category: z.enum(FLAG_CATEGORIES),
  }),
);

export const learned = verbTool(
  'learned',
  'Learned',
  'Record knowledge another agent on another task would need.',
  () => ({
    text: text().describe('Specific enough to act on'),
    kind: z
      .enum(LEARNED_KINDS)
      .describe('discovery: a fact; decision: a judgment call; convention: a pattern to follow'),
    rationale: optional('For decisions: why, what you rejected'),
    scope: z.enum(LEARNED_SCOPE_INPUTS).optional().describe('Who needs it; feature = subsystem (default)'),
  }),
  // Ralph's schema stores subsystem; its own signal server called it feature (and defaulted to it).
  { payload: (p) => ({ ...p, scope: p.scope === undefined || p.scope === 'feature' ? 'subsystem' : p.scope }) },
);

export const suggest = verbTool(
  'suggest',
  'Suggest',
  'Recommend work outside your task (a reviewer decides). Go on with your task.',
  () => ({
    what: text().describe('What should be done'),
    kind: z.enum(SUGGEST_KINDS),
    why: text(),
    feature: z.string().max(LIMITS.name).optional().describe('Its feature (new_task); not stored'),
  }),
);

export const blocked = verbTool(
  'blocked',
  'Blocked',
  'Part of your task cannot be done because something outside your control is missing or broken.',
  () => ({
    on: text(LIMITS.text).describe('What blocks you'),
    kind: z.enum(BLOCKED_KINDS).describe('external: credentials, services, a human decision'),
    detail: z.string().max(LIMITS.text).optional(),
  }),
);

// ---- get_answers ---------------------------------------------------------------------------

export const getAnswers = defineTool({
  name: 'get_answers',
  title: 'Get answers',
  category: 'signals',
  description: 'Questions asked on a task and the answers people gave (null: not yet).',
  input: () =>
    z.strictObject({
      task_id: taskId(),
      unanswered_only: z.boolean().optional(),
    }),
  output: () => z.object({ task_id: z.number().int(), questions: z.array(QuestionOut()) }),
  annotations: READ,
  taskTarget: { arg: 'task_id', writes: false },
  handler({ task_id, unanswered_only }, ctx) {
    requireTaskExists(ctx.store, task_id);
    const questions = ctx.store.signals.questions(task_id).filter((q) => !unanswered_only || q.answer === null);
    return { task_id, questions: questions.map(({ task_id: _t, session_id: _s, ...q }) => q) };
  },
});

/** The verbs in Ralph's order, then the read tool. */
export const SIGNAL_VERB_TOOLS: readonly AnyTool[] = [done, partial, stuck, ask, flag, learned, suggest, blocked];
export const SIGNAL_TOOLS: readonly AnyTool[] = [...SIGNAL_VERB_TOOLS, getAnswers];
