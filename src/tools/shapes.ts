import { once } from '../toolkit/tool.js';
import { z } from 'zod';

/**
 * Output shapes (the tools' outputSchema). Values read from Ralph's database are typed loosely where
 * Ralph may write values we do not produce ourselves (a status we do not know must not break a read).
 */
const str = once(() => z.string());
const nstr = once(() => z.string().nullable());

/**
 * Any JSON value (an item Ralph wrote that we only pass on), spelled as one branch per JSON type: a
 * schema without a single keyword accepts the same, but clients' portability checks flag it (the MCP
 * Inspector's "untyped schema"). zod still accepts anything here.
 */
const JSON_TYPES = ['object', 'array', 'string', 'number', 'boolean', 'null'] as const;
export const anyJson = once(() => z.unknown().meta({ anyOf: JSON_TYPES.map((type) => ({ type })) }));

export const TaskOut = once(() =>
  z.object({
    id: z.number().int(),
    feature: str(),
    discipline: str(),
    title: str(),
    description: nstr(),
    status: str(),
    priority: nstr(),
    tags: z.array(str()),
    depends_on: z.array(z.number().int()),
    blocked_by: nstr(),
    created: nstr(),
    updated: nstr(),
    completed: nstr(),
    acceptance_criteria: z.array(str()),
    context_files: z.array(str()),
    output_artifacts: z.array(str()),
    hints: nstr(),
    estimated_turns: z.number().int().nullable(),
    provenance: nstr(),
    pseudocode: nstr(),
    enriched_at: nstr(),
    /** Ralph's current schema only (legacy has no templates): the template the task was pulled from. */
    template: z.object({ id: z.number().int(), title: str() }).nullable().optional(),
    /** Lists stored longer than a read returns (the first 1,000 items are shown); absent when none. */
    truncated_lists: z.array(str()).optional(),
  }),
);

export const TaskRowOut = once(() =>
  z.object({
    id: z.number().int(),
    title: str(),
    status: str(),
    priority: nstr(),
    feature: str(),
    discipline: str(),
    depends_on: z.array(z.number().int()),
    /** Ralph's current schema only: the template the task was pulled from. */
    template_id: z.number().int().nullable().optional(),
    truncated_lists: z.array(str()).optional(),
  }),
);

export const CommentOut = once(() =>
  z.object({
    id: z.number().int(),
    task_id: z.number().int(),
    author: str(),
    discipline: nstr(),
    agent_task_id: z.number().int().nullable(),
    priority: nstr(),
    body: str(),
    created: nstr(),
  }),
);

export const LearningOut = once(() =>
  z.object({
    text: str(),
    reason: nstr().optional(),
    source: str(),
    task_id: z.number().int().nullable().optional(),
    iteration: z.number().int().nullable().optional(),
    created: str(),
    hit_count: z.number(),
    reviewed: z.boolean(),
    review_count: z.number(),
  }),
);

export const FeatureOut = once(() =>
  z.object({
    name: str(),
    display_name: str(),
    acronym: str(),
    description: nstr(),
    created: nstr(),
    knowledge_paths: z.array(str()),
    context_files: z.array(str()),
    architecture: nstr(),
    boundaries: nstr(),
    learnings: z.array(LearningOut()),
    dependencies: z.array(str()),
  }),
);

export const FeatureRowOut = once(() =>
  z.object({ name: str(), display_name: str(), acronym: str(), description: nstr() }),
);

export const DisciplineOut = once(() =>
  z.object({
    name: str(),
    display_name: str(),
    acronym: str(),
    icon: str(),
    color: str(),
    description: nstr(),
    system_prompt: nstr(),
    skills: z.array(str()),
    conventions: nstr(),
    mcp_servers: z.array(anyJson()),
    stack_id: z.number().int().nullable(),
    mcp_tool_overrides: z.object({ additional_disabled: z.array(str()) }).nullable(),
  }),
);

export const DisciplineRowOut = once(() =>
  z.object({ name: str(), display_name: str(), acronym: str(), icon: str(), color: str(), description: nstr() }),
);

export const StateReadOut = once(() =>
  z.object({
    file: str(),
    content: str(),
    entry_count: z.number().int(),
    returned_entries: z.number().int(),
    /** Only the file's end was read (it is larger than the read bound); entry_count counts what was read. */
    truncated: z.literal(true).optional(),
    omitted_bytes: z.number().int().optional(),
  }),
);

export const StateAppendOut = once(() =>
  z.object({ file: str(), entry: str(), bytes: z.number().int(), sanitized: z.array(z.string()).optional() }),
);

/** An `ask` signal: a question an agent asked, and the answer once a person gave one. */
export const QuestionOut = once(() =>
  z.object({
    id: z.number().int(),
    question: z.string(),
    options: z.array(z.string()),
    preferred: z.string().nullable(),
    blocking: z.boolean(),
    answer: z.string().nullable(),
    created: z.string().nullable(),
  }),
);
