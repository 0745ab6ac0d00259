import { TASK_TOOLS, nextTasks } from '../tools/tasks.js';
import { COMMENT_TOOLS } from '../tools/comments.js';
import { FEATURE_TOOLS } from '../tools/features.js';
import { DISCIPLINE_TOOLS } from '../tools/disciplines.js';
import { PROJECT_TOOLS } from '../tools/project.js';
import { STATE_TOOLS } from '../tools/stateFiles.js';
import { searchTasks } from '../tools/search.js';
import { SESSION_TOOLS, WORKFLOW_TOOLS } from '../tools/workflow.js';
import { SIGNAL_TOOLS } from '../tools/signals.js';
import { DEPENDENCY_TOOLS } from '../tools/dependencies.js';
import { BLOCKED_TOOLS } from '../tools/blocked.js';
import { CLAIM_TOOLS } from '../tools/claims.js';
import { TEMPLATE_TOOLS } from '../tools/templates.js';
import type { Generation } from '../store/records.js';
import { existsOn, type AnyTool } from '../toolkit/tool.js';

/**
 * The full suite, in SPEC-070's category order with each category's workflow tools after it. Every
 * session lists tools in this order (a recipe only removes entries), so snapshots are stable.
 */
export const REGISTRY: readonly AnyTool[] = [
  ...TASK_TOOLS,
  searchTasks,
  ...WORKFLOW_TOOLS,
  nextTasks, // beside claim_next_task, whose preview it is
  ...DEPENDENCY_TOOLS,
  ...BLOCKED_TOOLS, // what blocks what: beside the dependency tools
  ...CLAIM_TOOLS,
  ...TEMPLATE_TOOLS, // the last of the task tools: making tasks from Ralph's templates (normalized only)
  ...COMMENT_TOOLS,
  ...FEATURE_TOOLS,
  ...DISCIPLINE_TOOLS,
  ...PROJECT_TOOLS,
  ...STATE_TOOLS,
  ...SESSION_TOOLS,
  ...SIGNAL_TOOLS,
];

export const TOOL_NAMES: readonly string[] = REGISTRY.map((t) => t.name);

const BY_NAME = new Map(REGISTRY.map((t) => [t.name, t]));
export const toolByName = (name: string): AnyTool | undefined => BY_NAME.get(name);

/** The tools a database of this generation lacks (their `generations` leave it out): no session has them. */
export const toolsAbsentOn = (generation: Generation): string[] =>
  REGISTRY.filter((t) => !existsOn(t, generation)).map((t) => t.name);
