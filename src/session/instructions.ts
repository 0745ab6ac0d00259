import type { SessionPlan } from './plan.js';

/**
 * The `instructions` text of the initialize result, generated from the plan. It names only tools
 * this session can call (a prompt that names a missing tool is the coordination problem SPEC-070
 * exists to solve), and quotes every value that came from the database (titles are data, not orders).
 */
export function buildInstructions(plan: SessionPlan): string {
  const lines: string[] = [];
  lines.push(`Ralph project ${JSON.stringify(plan.projectTitle)}. ralph-mcp gives you this project's plan (features, disciplines, tasks) and state files.`);
  if (plan.recipe) lines.push(`Session recipe: ${plan.recipe.name}: ${plan.recipe.purpose}`);
  else lines.push('Session recipe: none (full tool suite, for debugging).');
  if (plan.discipline) lines.push(`Discipline: ${plan.discipline}.`);
  if (plan.task) {
    lines.push(
      `Task: #${plan.task.id} ${JSON.stringify(plan.task.title)} (status ${plan.task.status}, feature ${plan.task.feature}). ` +
        'Tools that take a task id default to it; changes to other tasks are refused.',
    );
  }
  if (plan.tools.length === 0) {
    lines.push('No tools are enabled in this session.');
  } else {
    lines.push('Tools:');
    for (const t of plan.tools) lines.push(`- ${t.def.name}: ${t.def.description}`);
  }
  lines.push('Errors come back with isError and a code (invalid_argument, not_found, conflict, out_of_scope, busy); the message says what is allowed.');
  return lines.join('\n');
}
