import { INLINE_DATA_NOTE, quoteData } from '../domain/quote.js';
import type { SessionPlan } from './plan.js';

/** A stored value as one JSON-quoted string on one line (controls, U+2028/9, format characters escaped). */
const q = (v: string): string => quoteData(v, 300);

/**
 * The `instructions` text of the initialize result. It names only tools this session can call (a prompt
 * naming a missing tool is what SPEC-070 exists to prevent), and quotes every value from the database or
 * the project's files: titles are data, not orders.
 */
export function buildInstructions(plan: SessionPlan): string {
  // The note comes first, before any quoted value, and holds none (docs/agent-text.md).
  const lines: string[] = [INLINE_DATA_NOTE];
  lines.push(
    `Ralph project ${q(plan.projectTitle)}. ralph-mcp gives you this project's plan (features, disciplines, tasks) and state files.`,
  );
  if (plan.generation === 'normalized')
    lines.push(
      'A feature here is what Ralph calls a subsystem: tools keep the word feature; names match case-insensitively.',
    );
  // Recipe names are checked against a pattern when recipes.json is loaded; purposes are free text.
  if (plan.recipe) lines.push(`Session recipe: ${plan.recipe.name}: ${quoteData(plan.recipe.purpose)}`);
  else lines.push('Session recipe: none (full tool suite, for debugging).');
  // Names and statuses come from the database too (Ralph's UI, or a person, may have written anything
  // there): quoted like the titles, so no stored text reaches the instructions unquoted.
  if (plan.discipline) lines.push(`Discipline: ${q(plan.discipline)}.`);
  if (plan.task) {
    lines.push(
      `Task: #${plan.task.id} ${q(plan.task.title)} (status ${q(plan.task.status)}, feature ${q(plan.task.feature)}). ` +
        'Tools that take a task id default to it; changes to other tasks are refused.',
    );
  }
  if (plan.tools.length === 0) {
    lines.push('No tools are enabled in this session.');
  } else {
    lines.push('Tools:');
    for (const t of plan.tools) lines.push(`- ${t.def.name}: ${t.description}`);
  }
  lines.push(
    'Errors come back with isError and a code (invalid_argument, not_found, conflict, out_of_scope, busy); the message says what is allowed.',
  );
  return lines.join('\n');
}
