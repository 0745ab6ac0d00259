import type { Db } from '../../db/database.js';
import { today } from '../../domain/rules.js';
import { requireJsonArray, stringArray, toJson } from '../json.js';
import type { FeatureRow } from '../records.js';
import type { FeatureChanges, FeatureStore } from '../store.js';
import { legacyKnowledge } from './knowledge.js';
import { featureFromRow } from './rows.js';

/**
 * Features on the legacy generation: one `features` row each (name is the key), lists and learnings as JSON;
 * knowledge of the other categories in a table of ours (knowledge.ts).
 */

const UPDATABLE = [
  'display_name',
  'description',
  'acronym',
  'knowledge_paths',
  'context_files',
  'architecture',
  'boundaries',
  'dependencies',
] as const;
const JSON_COLUMNS = new Set<string>(['knowledge_paths', 'context_files', 'dependencies']);
const UPDATE_SQL = Object.fromEntries(
  UPDATABLE.map((c) => [c, `UPDATE features SET ${c} = ? WHERE name = ?`]),
) as Record<(typeof UPDATABLE)[number], string>;

export function legacyFeatures(db: Db): FeatureStore {
  return {
    ...legacyKnowledge(db),
    listFeatures() {
      return db.all('SELECT name, display_name, acronym, description FROM features ORDER BY name').map(
        (r): FeatureRow => ({
          name: String(r.name),
          display_name: String(r.display_name),
          acronym: String(r.acronym),
          description: typeof r.description === 'string' ? r.description : null,
        }),
      );
    },
    getFeature(name) {
      const row = db.get('SELECT * FROM features WHERE name = ?', name);
      return row ? featureFromRow(row) : undefined;
    },
    featureName(name) {
      return db.get<{ name: string }>('SELECT name FROM features WHERE name = ?', name)?.name;
    },
    featureNames(limit) {
      return db
        .all<{ name: string }>('SELECT name FROM features ORDER BY name LIMIT CAST(? AS INTEGER)', limit)
        .map((r) => r.name);
    },
    createFeature(f) {
      db.run(
        `INSERT INTO features (name, display_name, acronym, description, created, knowledge_paths, context_files, architecture, boundaries, learnings, dependencies)
         VALUES (@name, @display_name, @acronym, @description, @created, @knowledge_paths, @context_files, @architecture, @boundaries, '[]', @dependencies)`,
        {
          name: f.name,
          display_name: f.display_name,
          acronym: f.acronym,
          description: f.description,
          created: today(),
          knowledge_paths: toJson(f.knowledge_paths),
          context_files: toJson(f.context_files),
          architecture: f.architecture,
          boundaries: f.boundaries,
          dependencies: toJson(f.dependencies),
        },
      );
    },
    updateFeature(name, changes: FeatureChanges) {
      for (const f of UPDATABLE) {
        const v = changes[f];
        if (v !== undefined) db.run(UPDATE_SQL[f], JSON_COLUMNS.has(f) ? toJson(v) : v, name);
      }
    },
    deleteFeature(name) {
      db.run('DELETE FROM features WHERE name = ?', name);
    },
    featureTaskCount(name) {
      return db.get<{ n: number }>('SELECT count(*) AS n FROM tasks WHERE feature = ?', name)!.n;
    },
    featureDependents(name) {
      return db
        .all<{ name: string }>(
          "SELECT f.name FROM features f, json_each(CASE WHEN json_valid(f.dependencies) THEN f.dependencies ELSE '[]' END) d WHERE d.value = ? ORDER BY f.name",
          name,
        )
        .map((r) => r.name);
    },
    featureDependencies(name) {
      return stringArray(db.get<{ d: string }>('SELECT dependencies AS d FROM features WHERE name = ?', name)?.d);
    },
    featureContextFileItems(name) {
      return requireJsonArray(
        db.get<{ v: unknown }>('SELECT context_files AS v FROM features WHERE name = ?', name)?.v,
        `features.context_files of feature ${name}`,
      );
    },
    writeFeatureContextFiles(name, items) {
      db.run('UPDATE features SET context_files = ? WHERE name = ?', toJson(items), name);
    },
    learningItems(name) {
      // Rewriting the column must not drop anything: refuse if it is not a JSON array at all.
      return requireJsonArray(
        db.get<{ v: unknown }>('SELECT learnings AS v FROM features WHERE name = ?', name)?.v,
        `features.learnings of feature ${name}`,
      );
    },
    writeLearningItems(name, items) {
      db.run('UPDATE features SET learnings = ? WHERE name = ?', toJson(items), name);
    },
  };
}
