import { z } from 'zod';
import { NameHintOut, similarNamesOf } from './duplicates.js';
import { findCycle } from '../domain/dependencies.js';
import {
  MAX_KNOWLEDGE_PER_CATEGORY,
  MAX_LEARNING_CHARS,
  MAX_LEARNINGS,
  SANITIZE_CHANGES,
  closestText,
  mergeLearning,
  publicLearning,
  sanitizeAgentText,
  sanitizeLearning,
  type Learning,
  type SanitizeResult,
} from '../domain/learnings.js';
import { MAX_CONTEXT_FILES, timestamp } from '../domain/rules.js';
import { conflict, invalid } from '../domain/errors.js';
import { once, CREATE, DELETE, READ, REPLACE, UPDATE, defineTool } from '../toolkit/tool.js';
import { writerOf } from '../toolkit/context.js';
import type { RalphStore, Writer } from '../store/store.js';
import { KNOWLEDGE_CATEGORIES, type KnowledgeCategory, type KnowledgeEntry } from '../store/records.js';
import { checkAcronym, checkContextFiles, checkNewName, freeAcronym } from './validate.js';
import { canonicalPath } from '../domain/paths.js';
import { LIMITS, acronym, optText, pathList, strList, taskId, text } from './fields.js';
import { plural, requireFeature, requireFeatureRecord, requireTaskExists } from './lookups.js';
import { FeatureOut, FeatureRowOut, LearningOut } from './shapes.js';

// No description: `feature_name`, or `name` on a *_feature tool, says it (every session pays for the bytes).
const featureName = once(() => z.string().max(LIMITS.name));

/** One knowledge entry as tools show it: what is unknown (null) is left out. */
const KnowledgeEntryOut = once(() =>
  z.object({
    id: z.number().int().nullable(),
    text: z.string(),
    summary: z.string().optional(),
    reason: z.string().optional(),
    discipline: z.string().optional(),
    task_id: z.number().int().optional(),
    created: z.string().nullable(),
  }),
);
const KnowledgeGroupsOut = once(() =>
  z.array(z.object({ category: z.string(), entries: z.array(KnowledgeEntryOut()) })),
);

function entryOut(e: KnowledgeEntry): z.infer<ReturnType<typeof KnowledgeEntryOut>> {
  return {
    id: e.id,
    text: e.text,
    ...(e.summary !== null ? { summary: e.summary } : {}),
    ...(e.reason !== null ? { reason: e.reason } : {}),
    ...(e.discipline !== null ? { discipline: e.discipline } : {}),
    ...(e.task_id !== null ? { task_id: e.task_id } : {}),
    created: e.created,
  };
}

/**
 * A feature's knowledge grouped as Ralph's prompt builder groups it (feature_context.rs): categories in
 * name order (its BTreeMap), only those with entries, each newest first (the store's order).
 */
function knowledgeGroups(store: RalphStore, feature: string, only?: KnowledgeCategory) {
  const entries = store.features.knowledge(feature);
  return KNOWLEDGE_CATEGORIES.filter((c) => only === undefined || c === only)
    .map((category) => ({ category, entries: entries.filter((e) => e.category === category).map(entryOut) }))
    .filter((g) => g.entries.length > 0);
}

const featureFields = once(() => ({
  description: optText(),
  acronym: acronym(),
  knowledge_paths: pathList('Docs to consult'),
  context_files: pathList('Files to read first'),
  architecture: optText(),
  boundaries: optText(),
  dependencies: strList().describe('Feature names'),
}));

function checkFeatureDeps(store: RalphStore, self: string, deps: readonly string[]): string[] {
  // Names as stored: on the normalized generation "Search" and "search" are one subsystem.
  const unique = [...new Set(deps.map((d) => store.features.featureName(d) ?? d))];
  if (unique.includes(self)) throw invalid(`${store.featureNoun} ${self} cannot depend on itself`);
  const missing = unique.filter((d) => store.features.featureName(d) === undefined);
  if (missing.length > 0)
    throw invalid(`dependencies names ${plural(store.featureNoun)} that do not exist: ${missing.join(', ')}`, {
      missing,
    });
  const cycle = findCycle(self, unique, (f) => store.features.featureDependencies(f));
  if (cycle) throw invalid(`dependencies would create a cycle: ${cycle.join(' → ')}`, { cycle });
  return unique;
}

export const listFeatures = defineTool({
  name: 'list_features',
  title: 'List features',
  category: 'features',
  description: 'List all features (name, display name, acronym, description).',
  input: () => z.strictObject({}),
  output: () => z.object({ features: z.array(FeatureRowOut()) }),
  annotations: READ,
  handler(_args, { store }) {
    return { features: store.features.listFeatures() };
  },
});

export const getFeature = defineTool({
  name: 'get_feature',
  title: 'Get feature',
  category: 'features',
  description: 'A feature in full: knowledge by category, learnings, context files, architecture notes.',
  input: () => z.strictObject({ name: featureName() }),
  output: () => z.object({ feature: FeatureOut().extend({ knowledge: KnowledgeGroupsOut() }) }),
  annotations: READ,
  handler({ name }, { store }) {
    const feature = requireFeatureRecord(store, name);
    return { feature: { ...feature, knowledge: knowledgeGroups(store, feature.name) } };
  },
});

export const createFeature = defineTool({
  name: 'create_feature',
  title: 'Create feature',
  category: 'features',
  description: 'Create a feature. name is its key (lower-case, e.g. "user-auth").',
  input: () =>
    z.strictObject({
      name: featureName(),
      display_name: text(LIMITS.title),
      ...z.object(featureFields()).partial().shape,
    }),
  output: () => z.object({ feature: FeatureOut(), possible_duplicates: z.array(NameHintOut()) }),
  annotations: CREATE,
  handler(args, ctx) {
    const { store } = ctx;
    checkNewName('feature', args.name);
    const existing = store.features.featureName(args.name);
    if (existing !== undefined)
      throw conflict(
        `${store.featureNoun} ${existing} already exists; choose another name, or change the existing one instead`,
      );
    const possible_duplicates = similarNamesOf(store, 'features', args.name);
    const acr =
      args.acronym !== undefined
        ? checkAcronym(store, 'features', args.acronym, null)
        : freeAcronym(store, 'features', args.display_name);
    store.features.createFeature({
      name: args.name,
      display_name: args.display_name,
      acronym: acr,
      description: args.description ?? null,
      knowledge_paths: checkContextFiles(ctx, args.knowledge_paths ?? [], 'knowledge_paths'),
      context_files: checkContextFiles(ctx, args.context_files ?? []),
      architecture: args.architecture ?? null,
      boundaries: args.boundaries ?? null,
      dependencies: checkFeatureDeps(store, args.name, args.dependencies ?? []),
    });
    return { feature: requireFeatureRecord(store, args.name), possible_duplicates };
  },
});

const FEATURE_UPDATABLE = [
  'display_name',
  'description',
  'acronym',
  'knowledge_paths',
  'context_files',
  'architecture',
  'boundaries',
  'dependencies',
] as const;
export const updateFeature = defineTool({
  name: 'update_feature',
  title: 'Update feature',
  category: 'features',
  description: 'Change only the given fields of a feature (lists are replaced whole).',
  input: () =>
    z.strictObject({
      name: featureName(),
      display_name: text(LIMITS.title).optional(),
      ...z.object(featureFields()).partial().shape,
      // An update keeps the acronym it has: no default from display_name to describe.
      acronym: acronym().describe('4 chars A-Z/0-9').optional(),
    }),
  output: () => z.object({ feature: FeatureOut(), changed: z.array(z.string()) }),
  annotations: REPLACE,
  featureTarget: { arg: 'name' },
  handler(args, ctx) {
    const { store } = ctx;
    const given = FEATURE_UPDATABLE.filter((f) => args[f] !== undefined);
    if (given.length === 0) throw invalid(`nothing to update: give at least one of ${FEATURE_UPDATABLE.join(', ')}`);
    const name = requireFeature(store, args.name);
    const { name: _name, ...changes } = args;
    if (args.acronym !== undefined) checkAcronym(store, 'features', args.acronym, name);
    if (args.knowledge_paths !== undefined)
      changes.knowledge_paths = checkContextFiles(ctx, args.knowledge_paths, 'knowledge_paths');
    if (args.context_files !== undefined) changes.context_files = checkContextFiles(ctx, args.context_files);
    if (args.dependencies !== undefined) changes.dependencies = checkFeatureDeps(store, name, args.dependencies);
    store.features.updateFeature(name, changes);
    return { feature: requireFeatureRecord(store, name), changed: given };
  },
});

export const deleteFeature = defineTool({
  name: 'delete_feature',
  title: 'Delete feature',
  category: 'features',
  description: 'Delete a feature. Refused while tasks or other features reference it.',
  input: () => z.strictObject({ name: featureName() }),
  output: () => z.object({ deleted: z.string() }),
  annotations: DELETE,
  featureTarget: { arg: 'name' },
  handler(args, { store }) {
    const name = requireFeature(store, args.name);
    const noun = store.featureNoun;
    const tasks = store.features.featureTaskCount(name);
    if (tasks > 0)
      throw conflict(`${noun} ${name} cannot be deleted: ${tasks} task(s) belong to it; move or delete them first`, {
        tasks,
      });
    const dependents = store.features.featureDependents(name);
    if (dependents.length > 0)
      throw conflict(`${noun} ${name} cannot be deleted: ${plural(noun)} ${dependents.join(', ')} depend on it`, {
        dependents,
      });
    store.features.deleteFeature(name);
    return { deleted: name };
  },
});

/** What an agent writes, sanitised as Ralph sanitises learnings: it goes into other agents' prompts. */
interface Written {
  text: string;
  summary: string | null;
  reason: string | null;
  /** What sanitising changed in any of the three. */
  sanitized: (typeof SANITIZE_CHANGES)[number][];
}

function sanitizeWritten(args: { text: string; summary?: string; reason?: string }): Written {
  const text = sanitizeLearning(args.text);
  // Ralph shows a summary instead of the text and a reason as "(why: …)": an empty one is none.
  const optional = (v: string | undefined, max: number) => (v ? sanitizeAgentText(v, max) : undefined);
  const summary = optional(args.summary, MAX_LEARNING_CHARS);
  const reason = optional(args.reason, 1000);
  if (text.text === '')
    throw invalid('text is empty once invisible characters are removed; write the lesson in visible text');
  const parts = [text, summary, reason].filter((p): p is SanitizeResult => p !== undefined);
  return {
    text: text.text,
    summary: summary?.text || null,
    reason: reason?.text || null,
    sanitized: SANITIZE_CHANGES.filter((c) => parts.some((p) => p.changes.includes(c))),
  };
}

/** A learning: merged as Ralph merges them (a near-duplicate bumps, a contradiction replaces, auto ones pruned). */
function appendLearning(
  store: RalphStore,
  feature: string,
  written: Written,
  source: Learning['source'],
  task: number | null,
  by: Writer,
) {
  const incoming: Learning = {
    text: written.text,
    source,
    created: timestamp(),
    hit_count: 1,
    reviewed: false,
    review_count: 0,
  };
  if (written.summary !== null) incoming.summary = written.summary;
  if (written.reason !== null) incoming.reason = written.reason;
  if (task != null) incoming.task_id = task;
  const stored = store.features.learningItems(feature);
  const result = mergeLearning(stored, incoming);
  if (result.outcome === 'added' && result.items.length > MAX_LEARNINGS) {
    throw conflict(
      `${store.featureNoun} ${feature} already holds ${stored.length} learnings (max ${MAX_LEARNINGS}) and none of them may be pruned (only unreviewed auto ones with hit_count <= 1 may); ask a reviewer to prune or review them`,
    );
  }
  store.features.writeLearningItems(feature, result.items, by);
  return {
    outcome: result.outcome,
    category: 'learning' as const,
    learning: publicLearning(result.learning),
    ...(result.matched !== undefined ? { matched: result.matched } : {}),
    learning_count: result.items.length,
    pruned: result.pruned,
  };
}

/**
 * Knowledge of another category: added unless an entry of that category already says the same (a
 * near-duplicate, judged as learnings are), which is named instead. Nothing is bumped or replaced: these
 * entries have no hit count, and a person may have written them. One that says the opposite is added,
 * and named as contradicted so that someone can settle it.
 */
function appendKnowledge(
  store: RalphStore,
  feature: string,
  category: Exclude<KnowledgeCategory, 'learning'>,
  written: Written,
  task: number | null,
  by: Writer,
) {
  const same = store.features.knowledge(feature).filter((e) => e.category === category);
  const near = closestText(
    same.map((e) => e.text),
    written.text,
  );
  if (near && !near.contradicts) {
    const existing = same[near.index]!;
    return {
      outcome: 'duplicate' as const,
      category,
      entry: entryOut(existing),
      matched: existing.text,
      entry_count: same.length,
    };
  }
  if (same.length >= MAX_KNOWLEDGE_PER_CATEGORY)
    throw conflict(
      `${store.featureNoun} ${feature} already holds ${same.length} ${category} entries ` +
        `(max ${MAX_KNOWLEDGE_PER_CATEGORY}); ask a person to merge or remove some in Ralph`,
    );
  const entry = store.features.addKnowledge(
    feature,
    {
      category,
      text: written.text,
      summary: written.summary,
      reason: written.reason,
      discipline: by.discipline,
      task_id: task,
    },
    by,
  );
  return {
    outcome: 'added' as const,
    category,
    entry: entryOut(entry),
    ...(near ? { contradicts: entryOut(same[near.index]!) } : {}),
    entry_count: same.length + 1,
  };
}

export const appendFeatureLearning = defineTool({
  name: 'append_feature_learning',
  title: 'Add feature knowledge',
  category: 'features',
  description:
    "Record knowledge about a feature for future tasks. A near-duplicate is not added (a learning's hit_count grows); see outcome.",
  input: () =>
    z.strictObject({
      feature_name: featureName(),
      text: text(2000).describe('Cut to 500 chars'),
      category: z.enum(KNOWLEDGE_CATEGORIES).optional().describe('Default learning'),
      summary: optText(1000).optional().describe('Shown in prompts instead of text'),
      // Trust is the server's to assign: over MCP every caller is an agent, so it may say agent or the
      // lower auto, never human (prompts rank human learnings first).
      source: z.enum(['auto', 'agent']).optional().describe('Learnings only; default agent'),
      reason: optText(1000).optional().describe('Why it matters'),
      task_id: taskId("Default: the session's task").optional(),
    }),
  output: () =>
    z.object({
      outcome: z.enum(['added', 'duplicate', 'replaced']),
      category: z.enum(KNOWLEDGE_CATEGORIES),
      learning: LearningOut().optional(),
      entry: KnowledgeEntryOut().optional(),
      matched: z.string().optional(),
      contradicts: KnowledgeEntryOut().optional(),
      learning_count: z.number().int().optional(),
      entry_count: z.number().int().optional(),
      pruned: z.number().int().optional(),
      sanitized: z.array(z.enum(SANITIZE_CHANGES)).optional(),
    }),
  annotations: CREATE,
  featureTarget: { arg: 'feature_name' },
  handler(args, { store, session }) {
    const feature = requireFeature(store, args.feature_name);
    const category = args.category ?? 'learning';
    if (category !== 'learning' && args.source !== undefined)
      throw invalid(`source is a learning's trust and applies only to category learning; leave it out for ${category}`);
    const task = args.task_id ?? session.taskId;
    if (task != null) requireTaskExists(store, task);
    // Knowledge goes into other agents' prompts: sanitised as Ralph does (src/domain/learnings.ts), whatever
    // `source` the caller claims (over MCP every caller is an agent), and the result says what changed.
    const written = sanitizeWritten(args);
    const by = writerOf(session);
    const result =
      category === 'learning'
        ? appendLearning(store, feature, written, args.source ?? 'agent', task, by)
        : appendKnowledge(store, feature, category, written, task, by);
    return { ...result, ...(written.sanitized.length > 0 ? { sanitized: written.sanitized } : {}) };
  },
});

export const addFeatureContextFile = defineTool({
  name: 'add_feature_context_file',
  title: 'Add feature context file',
  category: 'features',
  description: "Register a project file as relevant context for a feature's future tasks.",
  input: () =>
    z.strictObject({
      feature_name: featureName(),
      file_path: z.string().min(1).max(LIMITS.path).describe('Relative to the project root'),
    }),
  output: () =>
    z.object({
      feature_name: z.string(),
      file_path: z.string(),
      added: z.boolean(),
      context_files: z.array(z.string()),
    }),
  annotations: UPDATE,
  featureTarget: { arg: 'feature_name' },
  handler(args, ctx) {
    const { store } = ctx;
    const feature = requireFeature(store, args.feature_name);
    const current = store.features.featureContextFileItems(feature);
    const strings = (list: unknown[]) => list.filter((f): f is string => typeof f === 'string');
    const [path] = checkContextFiles(ctx, [args.file_path], 'file_path');
    // Compare canonical forms: "./src/x.ts" stored by hand is the same file as "src/x.ts".
    if (strings(current).some((f) => canonicalPath(f) === path)) {
      return { feature_name: feature, file_path: path!, added: false, context_files: strings(current) };
    }
    if (current.length >= MAX_CONTEXT_FILES) {
      throw conflict(
        `${store.featureNoun} ${feature} already has ${current.length} context files (max ${MAX_CONTEXT_FILES})`,
      );
    }
    const files = [...current, path!];
    store.features.writeFeatureContextFiles(feature, files);
    return { feature_name: feature, file_path: path!, added: true, context_files: strings(files) };
  },
});

/** Ralph injects learnings by trust: human, then opus_reviewed, agent, auto; then by hit_count. */
const SOURCE_RANK: Record<string, number> = { human: 0, opus_reviewed: 1, agent: 2, auto: 3 };

export const getFeatureLearnings = defineTool({
  name: 'get_feature_learnings',
  title: 'Get feature knowledge',
  category: 'features',
  description: "A feature's knowledge by category (learnings most trusted first). Check before recording more.",
  input: () =>
    z.strictObject({
      feature_name: featureName(),
      category: z.enum(KNOWLEDGE_CATEGORIES).optional(),
    }),
  output: () =>
    z.object({ feature_name: z.string(), learnings: z.array(LearningOut()), knowledge: KnowledgeGroupsOut() }),
  annotations: READ,
  handler({ feature_name, category }, { store }) {
    const feature = requireFeatureRecord(store, feature_name);
    // Array.prototype.sort is stable: equal rank and hit_count keep their stored order.
    const learnings =
      category === undefined || category === 'learning'
        ? feature.learnings.sort(
            (a, b) => (SOURCE_RANK[a.source] ?? 9) - (SOURCE_RANK[b.source] ?? 9) || b.hit_count - a.hit_count,
          )
        : [];
    return { feature_name, learnings, knowledge: knowledgeGroups(store, feature.name, category) };
  },
});

export const FEATURE_TOOLS = [
  listFeatures,
  getFeature,
  createFeature,
  updateFeature,
  deleteFeature,
  appendFeatureLearning,
  addFeatureContextFile,
  getFeatureLearnings,
];
