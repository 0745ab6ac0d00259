import { z } from 'zod';
import { NameHintOut, similarNamesOf } from './duplicates.js';
import { findCycle } from '../domain/dependencies.js';
import {
  MAX_LEARNINGS,
  SANITIZE_CHANGES,
  mergeLearning,
  publicLearning,
  sanitizeAgentText,
  sanitizeLearning,
  type Learning,
} from '../domain/learnings.js';
import { MAX_CONTEXT_FILES, timestamp } from '../domain/rules.js';
import { conflict, invalid } from '../domain/errors.js';
import { once, CREATE, DELETE, READ, REPLACE, UPDATE, defineTool } from '../toolkit/tool.js';
import { writerOf } from '../toolkit/context.js';
import type { RalphStore } from '../store/store.js';
import { checkAcronym, checkContextFiles, checkNewName, freeAcronym } from './validate.js';
import { canonicalPath } from '../domain/paths.js';
import { LIMITS, acronym, optText, pathList, strList, taskId, text } from './fields.js';
import { plural, requireFeature, requireFeatureRecord, requireTaskExists } from './lookups.js';
import { FeatureOut, FeatureRowOut, LearningOut } from './shapes.js';

const featureName = once(() => z.string().max(LIMITS.name).describe('Feature name'));

const featureFields = once(() => ({
  description: optText(),
  acronym: acronym(),
  knowledge_paths: pathList('Docs to consult (project-relative)'),
  context_files: pathList('Files to read first (project-relative)'),
  architecture: optText(),
  boundaries: optText(),
  dependencies: strList().describe('Names of features this one builds on'),
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
  description: 'Get a feature in full, including its learnings, context files and architecture notes.',
  input: () => z.strictObject({ name: featureName() }),
  output: () => z.object({ feature: FeatureOut() }),
  annotations: READ,
  handler({ name }, { store }) {
    return { feature: requireFeatureRecord(store, name) };
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

export const appendFeatureLearning = defineTool({
  name: 'append_feature_learning',
  title: 'Add feature learning',
  category: 'features',
  description:
    'Record a lesson about a feature for future tasks. A near-duplicate bumps the existing hit_count; a contradiction replaces it (see outcome).',
  input: () =>
    z.strictObject({
      feature_name: featureName(),
      text: text(2000).describe('One lesson; cut to 500 chars'),
      // Trust is the server's to assign: over MCP every caller is an agent, so it may say agent or the
      // lower auto, never human (prompts rank human learnings first).
      source: z.enum(['auto', 'agent']).optional().describe('Default agent'),
      reason: optText(1000).optional().describe('Why it matters'),
      task_id: taskId('Task it came from (default: session task)').optional(),
    }),
  output: () =>
    z.object({
      outcome: z.enum(['added', 'duplicate', 'replaced']),
      learning: LearningOut(),
      matched: z.string().optional(),
      learning_count: z.number().int(),
      pruned: z.number().int(),
      sanitized: z.array(z.enum(SANITIZE_CHANGES)).optional(),
    }),
  annotations: CREATE,
  featureTarget: { arg: 'feature_name' },
  handler(args, { store, session }) {
    const feature = requireFeature(store, args.feature_name);
    const sourceTask = args.task_id ?? session.taskId;
    if (sourceTask != null) requireTaskExists(store, sourceTask);
    // Learnings go into other agents' prompts: sanitised as Ralph does (src/domain/learnings.ts), whatever
    // `source` the caller claims (over MCP every caller is an agent), and the result says what changed.
    const text = sanitizeLearning(args.text);
    const reason = args.reason ? sanitizeAgentText(args.reason, 1000) : undefined;
    const sanitized = SANITIZE_CHANGES.filter(
      (c) => text.changes.includes(c) || (reason?.changes.includes(c) ?? false),
    );
    const incoming: Learning = {
      text: text.text,
      source: args.source ?? 'agent',
      created: timestamp(),
      hit_count: 1,
      reviewed: false,
      review_count: 0,
    };
    if (reason) incoming.reason = reason.text;
    if (sourceTask != null) incoming.task_id = sourceTask;
    const stored = store.features.learningItems(feature);
    const result = mergeLearning(stored, incoming);
    if (result.outcome === 'added' && result.items.length > MAX_LEARNINGS) {
      throw conflict(
        `${store.featureNoun} ${feature} already holds ${stored.length} learnings (max ${MAX_LEARNINGS}) and none of them may be pruned (only unreviewed auto ones with hit_count <= 1 may); ask a reviewer to prune or review them`,
      );
    }
    store.features.writeLearningItems(feature, result.items, writerOf(session));
    return {
      outcome: result.outcome,
      learning: publicLearning(result.learning),
      ...(result.matched !== undefined ? { matched: result.matched } : {}),
      learning_count: result.items.length,
      pruned: result.pruned,
      ...(sanitized.length > 0 ? { sanitized } : {}),
    };
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
  title: 'Get feature learnings',
  category: 'features',
  description: "A feature's learnings, in the order prompts show them. Check them before recording a new one.",
  input: () => z.strictObject({ feature_name: featureName() }),
  output: () => z.object({ feature_name: z.string(), learnings: z.array(LearningOut()) }),
  annotations: READ,
  handler({ feature_name }, { store }) {
    const learnings = requireFeatureRecord(store, feature_name).learnings;
    // Array.prototype.sort is stable: equal rank and hit_count keep their stored order.
    learnings.sort((a, b) => (SOURCE_RANK[a.source] ?? 9) - (SOURCE_RANK[b.source] ?? 9) || b.hit_count - a.hit_count);
    return { feature_name, learnings };
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
