import { ToolError, conflict } from '../domain/errors.js';
import { recipeByName } from '../registry/recipes.js';
import { SESSION_HOOKS } from '../registry/sessionHooks.js';
import type { ToolContext } from '../toolkit/context.js';
import type { SessionTool } from './plan.js';

/**
 * Session scope, applied to every call once its arguments are valid: an omitted task or feature argument
 * takes the session's, and a tool that changes a task, feature or discipline may change only the
 * session's own. Reading other tasks stays allowed (agents need their dependencies).
 */
export function applyScope(
  tool: SessionTool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Record<string, unknown> {
  const { taskTarget, featureTarget, disciplineTarget, name } = tool.def;
  const s = ctx.session;
  const own = s.taskId; // --task N, or the task this session claimed
  // The recipe's own values for arguments left out. A project recipe keeps its built-in's (projectRecipes.ts).
  const defaults = s.recipe !== null ? recipeByName(s.recipe)?.defaults?.[name] : undefined;
  for (const [arg, value] of Object.entries(defaults ?? {}))
    if (args[arg] === undefined) args = { ...args, [arg]: value };
  if (taskTarget) {
    const given = args[taskTarget.arg];
    if (given === undefined) {
      // Only reachable where the schema made the argument optional: a task session, or a claiming one.
      if (own === null)
        throw new ToolError('invalid_argument', `${taskTarget.arg} is required: this session has no task yet`);
      args = { ...args, [taskTarget.arg]: own };
    } else if (taskTarget.writes && own !== null && given !== own) {
      throw new ToolError(
        'out_of_scope',
        `this session is scoped to task ${own}; ${name} cannot change task ${String(given)} (reading other tasks is allowed)`,
      );
    } else if (taskTarget.writes && own === null && s.ownTaskOnly) {
      throw new ToolError(
        'out_of_scope',
        `this session works on its own task only and has none (launch it with --task N, or claim one first); ${name} cannot change task ${String(given)}`,
      );
    }
  }
  // A leased task that another session took over once the lease ran out is not this session's any more.
  if (taskTarget?.writes && s.leased && own !== null && args[taskTarget.arg] === own) {
    const other = SESSION_HOOKS.takenOver(ctx, own);
    if (other)
      throw conflict(
        `task ${own} was taken over by session ${other.session_id} after your lease ran out (${other.lease_until}): it is not yours any more; claim another`,
      );
  }
  if (featureTarget) {
    // The feature this session may change was fixed at launch (or at its claim): never re-read from the
    // task row, which the session itself may have moved.
    const scoped = s.feature ?? undefined;
    // A session whose own task is gone (deleted by itself, Ralph or SQL) changes no feature: the pin
    // above outlived the task it came from.
    if (own !== null && !tool.def.annotations.readOnlyHint && !ctx.store.tasks.taskHead(own))
      throw new ToolError(
        'out_of_scope',
        `this session's task ${own} no longer exists, so it changes no ${ctx.store.featureNoun}; ${name} is refused`,
      );
    // Fail closed: an own-task-only recipe without a task may change no feature at all (an unknown
    // scope must not mean "any feature").
    if (own === null && s.ownTaskOnly && scoped === undefined) {
      throw new ToolError(
        'out_of_scope',
        `this session works on its own task only and has none (launch it with --task N, or claim one first); ${name} cannot change a feature`,
      );
    }
    const noun = ctx.store.featureNoun;
    const why =
      own !== null
        ? `this session's task ${own} belongs to ${noun} ${String(scoped)}`
        : `this session is about ${noun} ${String(scoped)}`;
    const given = args[featureTarget.arg];
    if (given === undefined) {
      if (scoped === undefined)
        throw new ToolError('invalid_argument', `${featureTarget.arg} is required: this session has no task yet`);
      args = { ...args, [featureTarget.arg]: scoped };
    } else if (scoped !== undefined && (ctx.store.features.featureName(String(given)) ?? given) !== scoped) {
      // Compared as stored: on the normalized generation "Search" names the subsystem "search".
      throw new ToolError('out_of_scope', `${why}; ${name} cannot change ${noun} ${JSON.stringify(given)}`);
    }
  }
  if (disciplineTarget && s.disciplineScoped && args[disciplineTarget.arg] !== s.discipline) {
    throw new ToolError(
      'out_of_scope',
      `this session is scoped to discipline ${String(s.discipline)}; ${name} cannot change discipline ${JSON.stringify(args[disciplineTarget.arg])}`,
    );
  }
  return args;
}
