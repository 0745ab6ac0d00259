import { z } from 'zod';
import type { Db } from '../db/database.js';
import { requireJsonArray, stringArray, toJson } from '../db/json.js';
import { findCycle } from '../domain/dependencies.js';
import { MAX_LEARNINGS, SANITIZE_CHANGES, mergeLearning, publicLearning, sanitizeAgentText, sanitizeLearning, type Learning } from '../domain/learnings.js';
import { MAX_CONTEXT_FILES, timestamp, today } from '../domain/rules.js';
import { conflict, invalid } from '../errors.js';
import { CREATE, DELETE, READ, REPLACE, UPDATE, defineTool } from '../registry/types.js';
import { checkAcronym, checkContextFiles, checkNewName, freeAcronym } from './validate.js';
import { canonicalPath } from '../domain/paths.js';
import { LIMITS, acronym, optText, pathList, strList, taskId, text } from './fields.js';
import { featureFromRow, requireFeatureRow, requireTaskRow } from './rows.js';
import { FeatureOut, FeatureRowOut, LearningOut } from './shapes.js';

const featureName = z.string().max(LIMITS.name).describe('Feature name');

const featureFields = {
  description: optText(),
  acronym,
  knowledge_paths: pathList('Docs to consult (project-relative)'),
  context_files: pathList('Files to read first (project-relative)'),
  architecture: optText(),
  boundaries: optText(),
  dependencies: strList().describe('Names of features this one builds on'),
};

function checkFeatureDeps(db: Db, self: string, deps: readonly string[]): string[] {
  const unique = [...new Set(deps)];
  if (unique.includes(self)) throw invalid(`feature ${self} cannot depend on itself`);
  const missing = unique.filter((d) => !db.get('SELECT 1 AS x FROM features WHERE name = ?', d));
  if (missing.length > 0) throw invalid(`dependencies names features that do not exist: ${missing.join(', ')}`, { missing });
  const depsOf = (f: string) => stringArray(db.get<{ d: string }>('SELECT dependencies AS d FROM features WHERE name = ?', f)?.d);
  const cycle = findCycle(self, unique, depsOf);
  if (cycle) throw invalid(`dependencies would create a cycle: ${cycle.join(' → ')}`, { cycle });
  return unique;
}

export const listFeatures = defineTool({
  name: 'list_features',
  title: 'List features',
  category: 'features',
  description: 'List all features (name, display name, acronym, description).',
  input: z.strictObject({}),
  output: z.object({ features: z.array(FeatureRowOut) }),
  annotations: READ,
  handler(_args, { db }) {
    return {
      features: db.all('SELECT name, display_name, acronym, description FROM features ORDER BY name').map((r) => ({
        name: String(r.name),
        display_name: String(r.display_name),
        acronym: String(r.acronym),
        description: typeof r.description === 'string' ? r.description : null,
      })),
    };
  },
});

export const getFeature = defineTool({
  name: 'get_feature',
  title: 'Get feature',
  category: 'features',
  description: 'Get a feature in full, including its learnings, context files and architecture notes.',
  input: z.strictObject({ name: featureName }),
  output: z.object({ feature: FeatureOut }),
  annotations: READ,
  handler({ name }, { db }) {
    return { feature: featureFromRow(requireFeatureRow(db, name)) };
  },
});

export const createFeature = defineTool({
  name: 'create_feature',
  title: 'Create feature',
  category: 'features',
  description: 'Create a feature. name is its key (lower-case, e.g. "user-auth").',
  input: z.strictObject({
    name: featureName,
    display_name: text(LIMITS.title),
    ...z.object(featureFields).partial().shape,
  }),
  output: z.object({ feature: FeatureOut }),
  annotations: CREATE,
  handler(args, ctx) {
    const { db } = ctx;
    checkNewName('feature', args.name);
    if (db.get('SELECT 1 AS x FROM features WHERE name = ?', args.name)) throw conflict(`feature ${args.name} already exists; choose another name, or change the existing one instead`);
    const acr = args.acronym !== undefined ? checkAcronym(db, 'features', args.acronym, null) : freeAcronym(db, 'features', args.display_name);
    db.run(
      `INSERT INTO features (name, display_name, acronym, description, created, knowledge_paths, context_files, architecture, boundaries, learnings, dependencies)
       VALUES (@name, @display_name, @acronym, @description, @created, @knowledge_paths, @context_files, @architecture, @boundaries, '[]', @dependencies)`,
      {
        name: args.name,
        display_name: args.display_name,
        acronym: acr,
        description: args.description ?? null,
        created: today(),
        knowledge_paths: toJson(checkContextFiles(ctx, args.knowledge_paths ?? [], 'knowledge_paths')),
        context_files: toJson(checkContextFiles(ctx, args.context_files ?? [])),
        architecture: args.architecture ?? null,
        boundaries: args.boundaries ?? null,
        dependencies: toJson(checkFeatureDeps(db, args.name, args.dependencies ?? [])),
      },
    );
    return { feature: featureFromRow(requireFeatureRow(db, args.name)) };
  },
});

const FEATURE_UPDATABLE = ['display_name', 'description', 'acronym', 'knowledge_paths', 'context_files', 'architecture', 'boundaries', 'dependencies'] as const;
const FEATURE_UPDATE_SQL = Object.fromEntries(FEATURE_UPDATABLE.map((c) => [c, `UPDATE features SET ${c} = ? WHERE name = ?`])) as Record<
  (typeof FEATURE_UPDATABLE)[number],
  string
>;

export const updateFeature = defineTool({
  name: 'update_feature',
  title: 'Update feature',
  category: 'features',
  description: 'Change only the given fields of a feature (lists are replaced whole).',
  input: z.strictObject({
    name: featureName,
    display_name: text(LIMITS.title).optional(),
    ...z.object(featureFields).partial().shape,
  }),
  output: z.object({ feature: FeatureOut, changed: z.array(z.string()) }),
  annotations: REPLACE,
  featureTarget: { arg: 'name' },
  handler(args, ctx) {
    const { db } = ctx;
    const given = FEATURE_UPDATABLE.filter((f) => args[f] !== undefined);
    if (given.length === 0) throw invalid(`nothing to update: give at least one of ${FEATURE_UPDATABLE.join(', ')}`);
    requireFeatureRow(db, args.name);
    const values: Record<string, unknown> = { ...args };
    if (args.acronym !== undefined) checkAcronym(db, 'features', args.acronym, args.name);
    if (args.knowledge_paths !== undefined) values.knowledge_paths = toJson(checkContextFiles(ctx, args.knowledge_paths, 'knowledge_paths'));
    if (args.context_files !== undefined) values.context_files = toJson(checkContextFiles(ctx, args.context_files));
    if (args.dependencies !== undefined) values.dependencies = toJson(checkFeatureDeps(db, args.name, args.dependencies));
    for (const f of given) db.run(FEATURE_UPDATE_SQL[f], values[f], args.name);
    return { feature: featureFromRow(requireFeatureRow(db, args.name)), changed: given };
  },
});

export const deleteFeature = defineTool({
  name: 'delete_feature',
  title: 'Delete feature',
  category: 'features',
  description: 'Delete a feature. Refused while tasks or other features reference it.',
  input: z.strictObject({ name: featureName }),
  output: z.object({ deleted: z.string() }),
  annotations: DELETE,
  featureTarget: { arg: 'name' },
  handler({ name }, { db }) {
    requireFeatureRow(db, name);
    const tasks = db.get<{ n: number }>('SELECT count(*) AS n FROM tasks WHERE feature = ?', name)!.n;
    if (tasks > 0) throw conflict(`feature ${name} cannot be deleted: ${tasks} task(s) belong to it; move or delete them first`, { tasks });
    const dependents = db
      .all<{ name: string }>(
        "SELECT f.name FROM features f, json_each(CASE WHEN json_valid(f.dependencies) THEN f.dependencies ELSE '[]' END) d WHERE d.value = ? ORDER BY f.name",
        name,
      )
      .map((r) => r.name);
    if (dependents.length > 0) throw conflict(`feature ${name} cannot be deleted: features ${dependents.join(', ')} depend on it`, { dependents });
    db.run('DELETE FROM features WHERE name = ?', name);
    return { deleted: name };
  },
});

export const appendFeatureLearning = defineTool({
  name: 'append_feature_learning',
  title: 'Add feature learning',
  category: 'features',
  description:
    'Record a lesson about a feature for future tasks. A near-duplicate bumps the existing hit_count; a contradiction replaces it (see outcome).',
  input: z.strictObject({
    feature_name: featureName,
    text: text(2000).describe('One lesson; cut to 500 chars'),
    source: z.enum(['auto', 'agent', 'human']).optional().describe('Default agent'),
    reason: optText(1000).optional().describe('Why it matters'),
    task_id: taskId('Task it came from (default: session task)').optional(),
  }),
  output: z.object({
    outcome: z.enum(['added', 'duplicate', 'replaced']),
    learning: LearningOut,
    matched: z.string().optional(),
    learning_count: z.number().int(),
    pruned: z.number().int(),
    sanitized: z.array(z.enum(SANITIZE_CHANGES)).optional(),
  }),
  annotations: CREATE,
  featureTarget: { arg: 'feature_name' },
  handler(args, { db, session }) {
    const row = requireFeatureRow(db, args.feature_name);
    const sourceTask = args.task_id ?? session.taskId;
    if (sourceTask != null) requireTaskRow(db, sourceTask);
    // Learnings go into other agents' prompts: sanitised as Ralph does (src/domain/learnings.ts), whatever
    // `source` the caller claims (over MCP every caller is an agent), and the result says what changed.
    const text = sanitizeLearning(args.text);
    const reason = args.reason ? sanitizeAgentText(args.reason, 1000) : undefined;
    const sanitized = SANITIZE_CHANGES.filter((c) => text.changes.includes(c) || (reason?.changes.includes(c) ?? false));
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
    // Rewriting the column must not drop anything: refuse if it is not a JSON array at all.
    const stored = requireJsonArray(row.learnings, `features.learnings of feature ${args.feature_name}`);
    const result = mergeLearning(stored, incoming);
    if (result.outcome === 'added' && result.items.length > MAX_LEARNINGS) {
      throw conflict(
        `feature ${args.feature_name} already holds ${stored.length} learnings (max ${MAX_LEARNINGS}) and none of them may be pruned (only unreviewed auto ones with hit_count <= 1 may); ask a reviewer to prune or review them`,
      );
    }
    db.run('UPDATE features SET learnings = ? WHERE name = ?', toJson(result.items), args.feature_name);
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
  input: z.strictObject({ feature_name: featureName, file_path: z.string().min(1).max(LIMITS.path).describe('Relative to the project root') }),
  output: z.object({ feature_name: z.string(), file_path: z.string(), added: z.boolean(), context_files: z.array(z.string()) }),
  annotations: UPDATE,
  featureTarget: { arg: 'feature_name' },
  handler(args, ctx) {
    const { db } = ctx;
    const row = requireFeatureRow(db, args.feature_name);
    const current = requireJsonArray(row.context_files, `features.context_files of feature ${args.feature_name}`);
    const strings = (list: unknown[]) => list.filter((f): f is string => typeof f === 'string');
    const [path] = checkContextFiles(ctx, [args.file_path], 'file_path');
    // Compare canonical forms: "./src/x.ts" stored by hand is the same file as "src/x.ts".
    if (strings(current).some((f) => canonicalPath(f) === path)) {
      return { feature_name: args.feature_name, file_path: path!, added: false, context_files: strings(current) };
    }
    if (current.length >= MAX_CONTEXT_FILES) {
      throw conflict(`feature ${args.feature_name} already has ${current.length} context files (max ${MAX_CONTEXT_FILES})`);
    }
    const files = [...current, path!];
    db.run('UPDATE features SET context_files = ? WHERE name = ?', toJson(files), args.feature_name);
    return { feature_name: args.feature_name, file_path: path!, added: true, context_files: strings(files) };
  },
});

/** Ralph injects learnings by trust: human, then opus_reviewed, agent, auto; then by hit_count. */
const SOURCE_RANK: Record<string, number> = { human: 0, opus_reviewed: 1, agent: 2, auto: 3 };

export const getFeatureLearnings = defineTool({
  name: 'get_feature_learnings',
  title: 'Get feature learnings',
  category: 'features',
  description: "A feature's learnings, in the order prompts show them. Check them before recording a new one.",
  input: z.strictObject({ feature_name: featureName }),
  output: z.object({ feature_name: z.string(), learnings: z.array(LearningOut) }),
  annotations: READ,
  handler({ feature_name }, { db }) {
    const learnings = featureFromRow(requireFeatureRow(db, feature_name)).learnings;
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
