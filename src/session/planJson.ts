import type { Generation } from '../store/records.js';
import type { SessionPlan } from './plan.js';
import { filterText, filtersGiven } from './toolFilters.js';

/**
 * The session plan as stable JSON (`ralph-mcp plan --json`), described by schema/session-plan.schema.json,
 * for Ralph's prompt builder: it must name only `enabled_tools` in the agent's prompt.
 */
export const PLAN_FORMAT = 'ralph-mcp/session-plan@1';

export interface PlanJson {
  format: typeof PLAN_FORMAT;
  project: { root: string; database: string; title: string; schema: Generation };
  session_id: string;
  recipe: { name: string; purpose: string } | null;
  discipline: string | null;
  discipline_source: 'flag' | 'task' | null;
  task: { id: number; title: string; status: string; feature: string; discipline: string } | null;
  feature: string | null;
  enabled_tools: {
    name: string;
    title: string;
    category: string;
    purpose: string;
    read_only: boolean;
    destructive: boolean;
  }[];
  disabled_tools: string[];
  /** --read-only, --tools, --exclude-tools: what they asked for (what they removed is in disabled_tools). */
  tool_filters: { read_only: boolean; tools: string[] | null; exclude_tools: string[] };
  instructions: string;
  /** What is wrong or unusual with this launch (e.g. no recipe: the full debugging suite). */
  warnings: string[];
}

export function planToJson(plan: SessionPlan): PlanJson {
  return {
    format: PLAN_FORMAT,
    project: {
      root: plan.project.root,
      database: plan.project.dbPath,
      title: plan.projectTitle,
      schema: plan.generation,
    },
    session_id: plan.scope.sessionId,
    recipe: plan.recipe ? { name: plan.recipe.name, purpose: plan.recipe.purpose } : null,
    discipline: plan.discipline,
    discipline_source: plan.disciplineSource,
    task: plan.task,
    feature: plan.feature,
    enabled_tools: plan.tools.map(({ def, description }) => ({
      name: def.name,
      title: def.title,
      category: def.category,
      purpose: description,
      read_only: def.annotations.readOnlyHint,
      destructive: def.annotations.destructiveHint,
    })),
    disabled_tools: plan.disabled,
    tool_filters: {
      read_only: plan.filters.readOnly,
      tools: plan.filters.only === null ? null : [...plan.filters.only],
      exclude_tools: [...plan.filters.exclude],
    },
    instructions: plan.instructions,
    warnings: plan.warnings,
  };
}

export function planToText(plan: SessionPlan): string {
  const j = planToJson(plan);
  const lines = [
    ...j.warnings.map((w) => `warning: ${w}`),
    `project     ${j.project.title} (${j.project.root}; ${j.project.schema} schema)`,
    `recipe      ${j.recipe ? `${j.recipe.name}: ${j.recipe.purpose}` : '(none: full suite)'}`,
    `discipline  ${j.discipline ?? '(none)'}${j.discipline_source === 'task' ? " (the task's)" : ''}`,
    `task        ${j.task ? `#${j.task.id} ${j.task.title} [${j.task.status}]` : '(none)'}`,
    ...(filtersGiven(plan.filters) ? [`narrowed    ${filterText(plan.filters)} (these only remove tools)`] : []),
    '',
    `enabled tools (${j.enabled_tools.length}):`,
    ...j.enabled_tools.map(
      (t) =>
        `  ${t.name.padEnd(26)} ${(t.read_only ? 'read' : t.destructive ? 'destructive' : 'write').padEnd(12)} ${t.purpose}`,
    ),
    '',
    `disabled tools (${j.disabled_tools.length}): ${j.disabled_tools.join(', ') || '(none)'}`,
    '',
    'instructions:',
    ...j.instructions.split('\n').map((l) => `  | ${l}`),
  ];
  return lines.join('\n');
}
