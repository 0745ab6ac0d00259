import type { z } from 'zod';
import type { Generation } from '../store/records.js';
import type { SchemaInfo } from '../store/schema.js';
import type { RalphStore } from '../store/store.js';
import { StartupError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import { RECIPES, type Recipe } from '../registry/recipes.js';
import { TOOL_NAMES, toolByName, toolsAbsentOn } from '../registry/registry.js';
import { once, type AnyTool } from '../toolkit/tool.js';
import type { SessionScope } from '../toolkit/context.js';
import { toolArgs } from './listing.js';
import { narrowInput, narrowingOf, optionalNote, type Anchor, type Narrowing } from './narrowing.js';
import { buildInstructions } from './instructions.js';
import { resolveTools } from '../registry/enabled.js';
import { readOverrides } from './overrides.js';
import type { ToolFilters } from '../registry/enabled.js';
import { filterWarnings, removedByToolFilters, type ToolFilterRequest, toolFiltersOf } from './toolFilters.js';

/** What the launch asked for (flags, or later a context file). */
export interface SessionRequest extends ToolFilterRequest {
  sessionId?: string | undefined;
  recipe?: string | undefined;
  discipline?: string | undefined;
  /** As given on the command line (a string, so a typo can be echoed back); must be a positive integer. */
  task?: string | number | undefined;
  /** From a context.json: the feature the session is about (checked to exist, and to be the task's). */
  feature?: string | undefined;
  /** From a context.json: more tools to remove (never to add). */
  extraDisabled?: readonly string[] | undefined;
  /** The context.json these came from, for error messages. */
  contextFile?: string | undefined;
  /** --lease-seconds (else RALPH_MCP_LEASE_SECONDS, else 900): a claim's lease without a call of its session. */
  leaseSeconds?: number | undefined;
}

/** A tool as this session sees it: its definition plus the input schema this session exposes. */
export interface SessionTool {
  def: AnyTool;
  input: z.ZodObject;
  /** The description this session shows (on the normalized generation, features are named subsystems too). */
  description: string;
  /** How `input` was made from the tool's own schema (session/narrowing.ts). */
  narrowing: Narrowing;
  /** What the listing says of each argument made optional, in place of its description. */
  notes: Readonly<Record<string, string>>;
}

export interface SessionPlan {
  project: Project;
  /** Ralph's schema generation of this project's database. */
  generation: Generation;
  projectTitle: string;
  recipe: Recipe | null;
  discipline: string | null;
  /** 'task' when the discipline was taken from the task's own row (no --discipline given). */
  disciplineSource: 'flag' | 'task' | null;
  task: { id: number; title: string; status: string; feature: string; discipline: string } | null;
  /** The feature the session is about (context.json), or the task's. */
  feature: string | null;
  scope: SessionScope;
  tools: SessionTool[];
  disabled: string[];
  /** --read-only, --tools, --exclude-tools as given (checked): they removed what `disabled` holds beyond the rest. */
  filters: ToolFilters;
  instructions: string;
  warnings: string[];
  /** How this plan was made, so a connection can ask for a narrower one (session/narrow.ts). */
  origin: { request: SessionRequest; schema: SchemaInfo; recipes: readonly Recipe[] };
}

/**
 * Flags → session plan. Everything that can be wrong with a launch is found here, before any MCP
 * traffic, and reported as a StartupError: we never fall back to "all tools" on a bad name.
 */
export function buildSessionPlan(
  project: Project,
  store: RalphStore,
  schema: SchemaInfo,
  req: SessionRequest,
  recipes: readonly Recipe[] = RECIPES,
): SessionPlan {
  const warnings: string[] = [];
  const filters = toolFiltersOf(req);
  let recipe: Recipe | null = null;
  if (req.recipe !== undefined) {
    recipe = recipes.find((r) => r.name === req.recipe) ?? null;
    if (!recipe)
      throw new StartupError(
        `unknown recipe ${JSON.stringify(req.recipe)}; valid recipes: ${recipes.map((r) => r.name).join(', ')}`,
      );
  } else {
    warnings.push('no --recipe given: serving the full tool suite (meant for debugging with the MCP Inspector)');
  }

  let task: SessionPlan['task'] = null;
  if (req.task !== undefined) {
    const raw = String(req.task);
    if (!/^[1-9]\d{0,14}$/.test(raw))
      throw new StartupError(`--task must be a positive integer task id, got ${JSON.stringify(raw)}`);
    const row = store.tasks.taskHead(Number(raw));
    if (!row) throw new StartupError(`unknown task id ${raw} in ${project.dbPath}`);
    task = row;
  }

  // Warned, not refused, as for task_execution without a task: every call that needs the task is refused.
  if (recipe?.needsTask && !task)
    warnings.push(
      `recipe ${recipe.name} acts on one task and none was given: every signal will be refused; pass --task N`,
    );
  else if (recipe?.ownTaskOnly && !recipe.claimsTasks && !task) {
    warnings.push(
      `recipe ${recipe.name} works on its own task and none was given: its changes to a task (status, blockers, context) will be refused; pass --task N, or use --recipe worker, whose sessions claim tasks`,
    );
  }
  if (recipe?.acrossTasks && task) {
    warnings.push(
      `--task ${task.id} given to recipe ${recipe.name}, which works across tasks: it only makes task arguments default to task ${task.id} and refuses changes to other tasks; leave --task out unless that is meant`,
    );
  }

  // Without --discipline a task session uses its task's discipline. With --discipline D on a task of
  // another discipline both lists apply: a flag must never restore a tool the task's discipline removes.
  let disciplineName = req.discipline ?? task?.discipline ?? null;
  const disciplineSource = req.discipline !== undefined ? 'flag' : task ? 'task' : null;
  if (recipe?.needsDiscipline && req.discipline === undefined) {
    throw new StartupError(
      `recipe ${recipe.name} changes one discipline and none was given; pass --discipline NAME (disciplines in this project: ${store.disciplines.disciplineNames().join(', ') || '(none)'})`,
    );
  }
  let additionalDisabled: string[] = [];
  if (disciplineName !== null) {
    const row = store.disciplines.toolOverrides(disciplineName);
    if (!row) {
      const known = `disciplines in this project: ${store.disciplines.disciplineNames().join(', ') || '(none)'}`;
      if (disciplineSource === 'task') {
        throw new StartupError(
          `task ${task!.id}'s discipline ${JSON.stringify(disciplineName)} does not exist; pass --discipline NAME (${known})`,
        );
      }
      throw new StartupError(`unknown discipline ${JSON.stringify(disciplineName)}; ${known}`);
    }
    disciplineName = row.name;
    additionalDisabled = readOverrides(disciplineName, row.raw, store.disciplines.overridesLocation() ?? undefined);
  }
  if (task && disciplineName !== null && task.discipline !== disciplineName) {
    const own = store.disciplines.toolOverrides(task.discipline);
    // A task whose discipline row is gone has no overrides to add (Ralph's FK makes this rare).
    if (own)
      additionalDisabled.push(...readOverrides(own.name, own.raw, store.disciplines.overridesLocation() ?? undefined));
  }

  let feature: string | null = null;
  if (req.feature !== undefined) {
    const stored = store.features.featureName(req.feature);
    if (stored === undefined) {
      throw new StartupError(
        `${req.contextFile ?? 'context'}: field "feature": unknown ${store.featureNoun} ${JSON.stringify(req.feature)}`,
      );
    }
    if (task && task.feature !== stored) {
      throw new StartupError(
        `${req.contextFile ?? 'context'}: field "feature" is ${JSON.stringify(req.feature)} but task ${task.id} belongs to ${store.featureNoun} ${task.feature}`,
      );
    }
    feature = stored;
  }
  // A tool whose tables this database's generation lacks is removed like any other (never added back).
  const removed = [
    ...additionalDisabled,
    ...(req.extraDisabled ?? []),
    ...toolsAbsentOn(store.generation),
    ...removedByToolFilters(filters),
  ];
  const { enabled, disabled } = resolveTools(TOOL_NAMES, recipe ? recipe.allow : null, removed);
  warnings.push(...filterWarnings(filters, enabled));
  const sessionId = req.sessionId ?? newSessionId(recipe?.name ?? null, task?.id ?? null);
  if (!/^[\w.:@+-]{1,128}$/.test(sessionId))
    throw new StartupError(
      `--session-id must be 1-128 characters of letters, digits and . : @ + - _ (got ${JSON.stringify(sessionId)})`,
    );
  const scopeFeature = task?.feature ?? feature;
  const scope: SessionScope = {
    sessionId,
    recipe: recipe?.name ?? null,
    discipline: disciplineName,
    taskId: task?.id ?? null,
    claimed: false,
    leased: false,
    leasesTask: task !== null && recipe?.leasesTask === true,
    disciplineScoped: req.discipline !== undefined,
    ownTaskOnly: recipe?.ownTaskOnly === true,
    feature: scopeFeature,
    launch: { feature, discipline: req.discipline !== undefined ? disciplineName : null },
    removed: new Set(),
    leaseMs: leaseMs(req.leaseSeconds),
  };
  const tools = enabled.map((name) =>
    sessionTool(toolByName(name)!, recipe, anchorOf(recipe, task?.id ?? null, feature), store.generation),
  );

  const plan: SessionPlan = {
    project,
    generation: store.generation,
    projectTitle: store.project.projectInfo().title,
    recipe,
    discipline: disciplineName,
    disciplineSource,
    task,
    feature: feature ?? task?.feature ?? null,
    scope,
    tools,
    disabled,
    filters,
    instructions: '',
    warnings,
    origin: { request: req, schema, recipes },
  };
  plan.instructions = buildInstructions(plan);
  return plan;
}

/**
 * "task_execution-7-20261125T214417Z-3f9a": readable in Ralph's tables, unique enough per launch. A
 * session id is a name, never a credential, so Math.random suffices for the suffix.
 */
function newSessionId(recipe: string | null, taskId: number | null): string {
  const stamp = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const suffix = Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return [recipe ?? 'full', taskId, stamp, suffix].filter((x) => x !== null).join('-');
}

/** What the session's tools default to (session/narrowing.ts). */
function anchorOf(recipe: Recipe | null, taskId: number | null, feature: string | null): Anchor {
  if (taskId !== null) return { kind: 'task', id: taskId };
  if (recipe?.claimsTasks) return { kind: 'claims' };
  return feature !== null ? { kind: 'feature', name: feature } : null;
}

/**
 * A tool as the session exposes it: its input narrowed by the recipe, and the task (or feature)
 * argument optional where the session fills it in. The zod schema is made when the tool is first called.
 */
function sessionTool(def: AnyTool, recipe: Recipe | null, anchor: Anchor, generation: Generation): SessionTool {
  const narrowing = narrowingOf(def, recipe, toolArgs(def), anchor);
  const input = once(() => narrowInput(def.input as z.ZodObject, narrowing));
  return {
    def,
    get input() {
      return input();
    },
    description:
      generation === 'normalized' && def.category === 'features' ? subsystemWording(def.description) : def.description,
    narrowing,
    notes: Object.fromEntries(narrowing.optional.map((o) => [o.arg, optionalNote(o.fills, anchor)])),
  };
}

/**
 * On the normalized generation, whose Ralph calls a feature a subsystem, a feature tool's description
 * says so at its first "feature" only: every word here is paid for on every turn.
 */
export const subsystemWording = (text: string): string =>
  text.replace(/\b([Ff]eature)(s?)\b(?! \(|')/, (_m, word: string, s: string) => `${word}${s} (subsystem${s})`);

/** A claim's lease: --lease-seconds, else RALPH_MCP_LEASE_SECONDS, else 15 minutes. */
export const LEASE_SECONDS_DEFAULT = 900;
function leaseMs(flag: number | undefined): number {
  const raw =
    flag ?? (process.env.RALPH_MCP_LEASE_SECONDS ? Number(process.env.RALPH_MCP_LEASE_SECONDS) : LEASE_SECONDS_DEFAULT);
  if (!Number.isFinite(raw) || raw <= 0 || raw > 7 * 24 * 3600) {
    throw new StartupError(
      `--lease-seconds (or RALPH_MCP_LEASE_SECONDS) must be a number of seconds above 0 and at most a week, got ${JSON.stringify(flag ?? process.env.RALPH_MCP_LEASE_SECONDS)}`,
    );
  }
  return Math.round(raw * 1000);
}
