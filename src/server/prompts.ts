import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  type Prompt,
} from '@modelcontextprotocol/sdk/types.js';
import { DATA_NOTE, dataBlock, labelName, quoteData } from '../domain/quote.js';
import { ToolError } from '../domain/errors.js';
import type { SessionPlan } from '../session/plan.js';
import type { Session } from '../session/session.js';
import { handle } from './handle.js';
import { REQUEST_BOUNDS } from '../domain/limits.js';

/**
 * Prompts: `task_brief` (a task, what its dependencies produced, its feature's knowledge, and how to
 * report back) and one for the session's own recipe (its purpose and tools). They are built from the
 * session plan, so they can only name tools this session has; anything other agents wrote (titles,
 * comments, learnings) goes in as quoted JSON data, never as instructions.
 */
const invalid = (message: string) => Object.assign(new Error(message), { code: ErrorCode.InvalidParams });

/** The reporting tools a brief may suggest, in the order it suggests them, if the session has them. */
const REPORTING: [string, string][] = [
  ['add_task_comment', 'leave a comment with what you did or found'],
  ['report_blocker', 'report what blocks you'],
  ['set_task_status', 'set the status when you are done'],
  ['append_feature_learning', "record a lesson (or other knowledge) about the task's feature"],
  ['append_learning', 'record a project-wide lesson'],
  ['append_progress', 'note your progress'],
  ['signal_abort', 'ask Ralph to end the session if you cannot go on'],
  ['done', 'signal that the task is complete'],
  ['partial', 'signal progress on an unfinished task'],
  ['ask', 'ask a person a question'],
  ['blocked', 'report what blocks you'],
  ['stuck', 'signal that you cannot go on'],
];

export function promptsFor(plan: SessionPlan): Prompt[] {
  const recipePrompt: Prompt = {
    name: plan.recipe?.name ?? 'full_suite',
    title: plan.recipe ? `Recipe ${plan.recipe.name}` : 'Full tool suite',
    // A purpose may come from .ralph/mcp/recipes.json: quoted like any project text (domain/quote.ts).
    description: plan.recipe
      ? `Recipe ${plan.recipe.name}: ${quoteData(plan.recipe.purpose)}`
      : 'Every ralph-mcp tool (debugging session).',
  };
  return [
    {
      name: 'task_brief',
      title: 'Task brief',
      description: "A task, what its dependencies produced, its feature's knowledge, and how to report back.",
      arguments: [
        {
          name: 'task_id',
          description: plan.task ? `Default ${plan.task.id}` : 'Task id',
          required: plan.task === null,
        },
      ],
    },
    recipePrompt,
  ];
}

/**
 * What a brief may spend on comments (characters of their JSON), since a task may have any number: the
 * task's own most recent, and, shared among its dependencies, theirs; each body cut to `body`. Comments
 * past a budget are left out, and the brief says how many.
 */
export const BRIEF_BUDGET = REQUEST_BOUNDS.brief;

type BriefComment = { author: string; created: string | null; body: string };

/** What a brief reads of get_task, get_dependency_details and get_feature_learnings (its knowledge). */
interface TaskRead {
  task: { feature: string };
  comments: BriefComment[];
  comment_count: number;
  open_questions: { question: string; options: unknown; preferred: unknown; blocking: boolean }[];
}
interface DependencyRead {
  dependencies: {
    id: number;
    title: string;
    status: string;
    output_artifacts: string[];
    comments: BriefComment[];
  }[];
  missing: number[];
}
interface KnowledgeRead {
  knowledge: { category: string; entries: { text: string; summary?: string; reason?: string }[] }[];
}

/**
 * A feature's knowledge as Ralph's prompt builder writes it (feature_context.rs): a heading per category,
 * in its order, then one line per entry, newest first: the summary if there is one, else the text, and
 * "(why: …)" with a reason. Each category's lines go in as one quoted data block; the heading (a fixed
 * category name) is ours.
 */
function knowledgeBlocks(read: KnowledgeRead, data: (v: unknown) => string): string[] {
  return read.knowledge.flatMap((g) => [
    // A category is one of seven names, unless a person wrote another into Ralph's table: quoted then.
    `${labelName(g.category)}:`,
    data(g.entries.map((e) => `${e.summary ?? e.text}${e.reason !== undefined ? ` (why: ${e.reason})` : ''}`)),
  ]);
}
const briefComment = (c: BriefComment): BriefComment => ({
  author: c.author,
  created: c.created,
  body:
    c.body.length > BRIEF_BUDGET.body
      ? `${c.body.slice(0, BRIEF_BUDGET.body)}… (cut at ${BRIEF_BUDGET.body} of ${c.body.length} characters)`
      : c.body,
});

/** The most recent comments (given oldest first) that fit `budget`, oldest first; and what they cost. */
function recentWithin<T>(items: readonly T[], budget: number): { kept: T[]; spent: number } {
  const kept: T[] = [];
  let spent = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const cost = JSON.stringify(items[i]).length;
    if (spent + cost > budget) break;
    kept.unshift(items[i]!);
    spent += cost;
  }
  return { kept, spent };
}

function taskBrief(session: Session, rawId: string | undefined): string {
  const { plan } = session;
  const id = rawId === undefined || rawId === '' ? plan.scope.taskId : /^\d{1,15}$/.test(rawId) ? Number(rawId) : NaN;
  if (id === null) throw invalid('task_brief needs task_id: this session has no task');
  if (Number.isNaN(id)) throw invalid(`task_id must be a task id (a positive integer), got ${JSON.stringify(rawId)}`);
  let got: TaskRead;
  try {
    got = session.read('get_task', { id, comment_limit: 100 }) as TaskRead;
  } catch (err) {
    if (err instanceof ToolError) throw invalid(err.message);
    throw err;
  }
  const details = session.read('get_dependency_details', { id, depth: 1 }) as DependencyRead;
  let depBudget: number = BRIEF_BUDGET.dependencyComments;
  const deps = [
    ...details.dependencies.map((d) => {
      const bodies = d.comments.map((c) => briefComment(c).body);
      const { kept, spent } = recentWithin(bodies, depBudget);
      depBudget -= spent;
      const left = bodies.length - kept.length;
      return {
        id: d.id,
        title: d.title,
        status: d.status,
        output_artifacts: d.output_artifacts,
        comments: kept,
        ...(left > 0 ? { older_comments_left_out: left } : {}),
      };
    }),
    ...details.missing.map((mid) => ({ id: mid, status: 'missing: this task does not exist' })),
  ];
  const own = recentWithin(got.comments.map(briefComment), BRIEF_BUDGET.comments).kept;
  const leftOut = got.comment_count - own.length;
  const feature = { feature_name: got.task.feature };
  const knowledge = session.read('get_feature_learnings', feature) as KnowledgeRead;
  const enabled = new Set(plan.tools.map((t) => t.def.name));
  const reporting = REPORTING.filter(([tool]) => enabled.has(tool)).map(([tool, what]) => `- ${tool}: ${what}`);
  // Every stored string goes in as a fenced JSON data block (domain/quote.ts): one line each, quoted, with
  // no backtick, so no text can close the fence or pose as a line of ours (docs/agent-text.md).
  const data = dataBlock;
  return [
    `Brief for task #${id}. ${DATA_NOTE}`,
    '',
    'The task:',
    data(got.task),
    '',
    leftOut > 0
      ? `Comments on it (the ${own.length} most recent of ${got.comment_count}; ${leftOut} older left out, get_task pages them):`
      : 'Comments on it:',
    data(own),
    '',
    'What its dependencies produced:',
    data(deps),
    '',
    ...(got.open_questions.length > 0
      ? [
          'Questions asked on it that still wait for an answer from a person:',
          data(
            got.open_questions.map((q) => ({
              question: q.question,
              options: q.options,
              preferred: q.preferred,
              blocking: q.blocking,
            })),
          ),
          '',
        ]
      : []),
    ...(knowledge.knowledge.length > 0
      ? [
          `Knowledge of feature ${quoteData(got.task.feature, 100)}, by category (newest first in each):`,
          ...knowledgeBlocks(knowledge, data),
        ]
      : [`Feature ${quoteData(got.task.feature, 100)} has no recorded knowledge yet.`]),
    '',
    reporting.length
      ? `To report back in this session:\n${reporting.join('\n')}`
      : 'This session has no tools to report back with.',
  ].join('\n');
}

function recipeText(plan: SessionPlan): string {
  return [
    plan.recipe
      ? `Session recipe ${plan.recipe.name}: ${quoteData(plan.recipe.purpose)}`
      : 'No recipe: the full tool suite (debugging).',
    '',
    'Tools in this session:',
    ...plan.tools.map((t) => `- ${t.def.name}: ${t.description}`),
  ].join('\n');
}

export function registerPrompts(server: Server, session: Session, projectWork: () => void): void {
  const { plan } = session;
  const { store } = session.ctx;
  const prompts = promptsFor(plan);
  handle(server, ListPromptsRequestSchema, () => ({ prompts }));
  handle(server, GetPromptRequestSchema, (req) => {
    projectWork();
    const { name, arguments: args } = req.params;
    if (name === 'task_brief') {
      // Its three reads (task, dependencies, learnings) from one snapshot, as one answer.
      const text = session.store.read(() => taskBrief(session, args?.task_id));
      return {
        description: 'Task brief',
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
      };
    }
    if (name === prompts[1]!.name) {
      return {
        description: prompts[1]!.description,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: recipeText(plan) } }],
      };
    }
    throw invalid(`Unknown prompt: ${name}`);
  });

  // Completion: task ids for task_brief and ralph://tasks/{id}; names for the other templates.
  handle(server, CompleteRequestSchema, (req) => {
    projectWork();
    const { ref, argument } = req.params;
    const prefix = argument.value ?? '';
    let values: string[] = [];
    const isTaskArg =
      (ref.type === 'ref/prompt' && ref.name === 'task_brief' && argument.name === 'task_id') ||
      (ref.type === 'ref/resource' && ref.uri === 'ralph://tasks/{id}' && argument.name === 'id');
    if (isTaskArg) {
      values = store.tasks.completeTaskIds(prefix, 101).map(String);
    } else if (ref.type === 'ref/resource' && ref.uri === 'ralph://features/{name}' && argument.name === 'name') {
      values = store.names.completeNames('features', prefix, 101);
    } else if (ref.type === 'ref/resource' && ref.uri === 'ralph://disciplines/{name}' && argument.name === 'name') {
      values = store.names.completeNames('disciplines', prefix, 101);
    }
    return { completion: { values: values.slice(0, 100), hasMore: values.length > 100 } };
  });
}
