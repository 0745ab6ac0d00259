import type { RalphStore } from '../store/store.js';
import { buildSessionPlan, type SessionPlan } from './plan.js';

/**
 * Per-connection narrowing (HTTP `Ralph-Task` header or `?task=`): a connection may ask for ONE task's
 * session, built exactly as `--task N` would build it, never for more than the launch gives. Recipes that
 * change no task without one (task_execution, worker) refuse it: a task would widen them.
 */
export type Narrowed = { ok: true; plan: SessionPlan } | { ok: false; reason: string };

export function narrowToTask(plan: SessionPlan, store: RalphStore, rawTask: string): Narrowed {
  const task = rawTask.trim();
  if (!/^[1-9]\d{0,14}$/.test(task))
    return { ok: false, reason: `task must be a positive integer task id, got ${JSON.stringify(rawTask)}` };
  if (plan.task) {
    return Number(task) === plan.task.id
      ? { ok: true, plan }
      : {
          ok: false,
          reason: `this server is scoped to task ${plan.task.id}; a connection cannot switch to task ${task}`,
        };
  }
  if (plan.recipe?.ownTaskOnly || plan.recipe?.claimsTasks) {
    return {
      ok: false,
      reason: `recipe ${plan.recipe.name} changes no task without --task, so a per-connection task would widen it; launch a server with --task ${task}`,
    };
  }
  let narrowed: SessionPlan;
  try {
    const { request, schema, recipes } = plan.origin;
    narrowed = buildSessionPlan(
      plan.project,
      store,
      schema,
      { ...request, task, sessionId: plan.scope.sessionId },
      recipes,
    );
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  // Defence in depth: whatever the task's discipline overrides do, never a tool the launch lacks.
  const launched = new Set(plan.tools.map((t) => t.def.name));
  const extra = narrowed.tools.filter((t) => !launched.has(t.def.name));
  if (extra.length > 0)
    return { ok: false, reason: `narrowing to task ${task} would add ${extra.map((t) => t.def.name).join(', ')}` };
  return { ok: true, plan: narrowed };
}
