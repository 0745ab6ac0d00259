import type { Db, Row } from '../../db/database.js';
import {
  ITEM_IDENTITY,
  LEARNING_SOURCES,
  normalizeLearning,
  publicLearning,
  type Learning,
} from '../../domain/learnings.js';
import { timestamp, today } from '../../domain/rules.js';
import { ensureOwnTables } from '../own/schema.js';
import type { Feature, FeatureRow } from '../records.js';
import type { FeatureChanges, FeatureStore, Writer } from '../store.js';
import { hasOwnTables, subsystemId } from './sql.js';
import { NORMALIZED_MIRROR } from './facets.js';
import { normalizedKnowledge } from './knowledge.js';

/**
 * Features on the normalized generation are Ralph's `subsystems` (agents keep SPEC-070's word), and learnings
 * its `subsystem_comments` of category `learning` (every category: knowledge.ts). What that table has no
 * column for (source, hit count, review) lives in our ralph_mcp_learning_meta, keyed by the comment's id.
 */

const COLUMNS = ['display_name', 'description', 'acronym', 'architecture', 'boundaries'] as const;
const UPDATE_SQL = Object.fromEntries(COLUMNS.map((c) => [c, `UPDATE subsystems SET ${c} = ? WHERE id = ?`])) as Record<
  (typeof COLUMNS)[number],
  string
>;

const LISTS = {
  knowledge_paths: {
    read: 'SELECT path AS v FROM subsystem_knowledge_paths WHERE subsystem_id = ? ORDER BY id',
    clear: 'DELETE FROM subsystem_knowledge_paths WHERE subsystem_id = ?',
    add: 'INSERT INTO subsystem_knowledge_paths (subsystem_id, path) VALUES (?, ?)',
  },
  context_files: {
    read: 'SELECT file_path AS v FROM subsystem_context_files WHERE subsystem_id = ? ORDER BY id',
    clear: 'DELETE FROM subsystem_context_files WHERE subsystem_id = ?',
    add: 'INSERT INTO subsystem_context_files (subsystem_id, file_path) VALUES (?, ?)',
  },
} as const;

const LEARNINGS = {
  withMeta: `SELECT c.id, c.body, c.summary, c.reason, c.agent_task_id, c.source_iteration, c.created, m.source, m.hit_count, m.reviewed, m.review_count, m.extra
    FROM subsystem_comments c LEFT JOIN ralph_mcp_learning_meta m ON m.comment_id = c.id WHERE c.subsystem_id = ? AND c.category = 'learning' ORDER BY c.id`,
  plain: `SELECT c.id, c.body, c.summary, c.reason, c.agent_task_id, c.source_iteration, c.created, NULL AS source, NULL AS hit_count, NULL AS reviewed, NULL AS review_count, NULL AS extra
    FROM subsystem_comments c WHERE c.subsystem_id = ? AND c.category = 'learning' ORDER BY c.id`,
};

type Identified = Learning & { [ITEM_IDENTITY]?: unknown };

/**
 * A learning row as a merge item. A learning Ralph's agents wrote has no metadata of ours: it reads as
 * an agent's, seen once, unreviewed (never `auto`, so never pruned by us).
 */
function learningFromRow(r: Row): Identified {
  let extra: Record<string, unknown> = {};
  try {
    if (typeof r.extra === 'string') extra = JSON.parse(r.extra) as Record<string, unknown>;
  } catch {
    extra = {};
  }
  const item: Identified = {
    ...extra,
    text: String(r.body),
    source: (LEARNING_SOURCES as readonly unknown[]).includes(r.source) ? (r.source as Learning['source']) : 'agent',
    created: typeof r.created === 'string' ? r.created : '',
    hit_count: typeof r.hit_count === 'number' ? r.hit_count : 1,
    reviewed: r.reviewed === 1,
    review_count: typeof r.review_count === 'number' ? r.review_count : 0,
  };
  if (typeof r.summary === 'string') item.summary = r.summary;
  if (typeof r.reason === 'string') item.reason = r.reason;
  if (typeof r.agent_task_id === 'number') item.task_id = r.agent_task_id;
  if (typeof r.source_iteration === 'number') item.iteration = r.source_iteration;
  item[ITEM_IDENTITY] = Number(r.id);
  return item;
}

const KNOWN_KEYS = new Set([
  'text',
  'summary',
  'reason',
  'source',
  'task_id',
  'iteration',
  'created',
  'hit_count',
  'reviewed',
  'review_count',
]);
/** Fields of a learning our columns do not cover (a legacy item's own keys, carried by migrate). */
const extraOf = (l: Record<string, unknown>): string | null => {
  const rest = Object.fromEntries(Object.entries(l).filter(([k]) => !KNOWN_KEYS.has(k)));
  return Object.keys(rest).length > 0 ? JSON.stringify(rest) : null;
};

export function normalizedFeatures(db: Db): FeatureStore {
  const readList = (id: number, which: keyof typeof LISTS) =>
    db.all<{ v: string }>(LISTS[which].read, id).map((r) => r.v);
  const writeList = (id: number, which: keyof typeof LISTS, items: readonly unknown[]) => {
    db.run(LISTS[which].clear, id);
    for (const item of items) if (typeof item === 'string') db.run(LISTS[which].add, id, item);
  };
  const writeDependencies = (id: number, names: readonly string[]) => {
    db.run('DELETE FROM subsystem_dependencies WHERE subsystem_id = ?', id);
    for (const n of names)
      db.run(
        'INSERT INTO subsystem_dependencies (subsystem_id, depends_on_subsystem_id) VALUES (?, ?)',
        id,
        subsystemId(db, n),
      );
  };
  const learningRows = (id: number): Identified[] =>
    db.all(LEARNINGS[hasOwnTables(db) ? 'withMeta' : 'plain'], id).map(learningFromRow);

  return {
    ...normalizedKnowledge(db),
    listFeatures() {
      return db.all<FeatureRow>('SELECT name, display_name, acronym, description FROM subsystems ORDER BY name');
    },
    getFeature(name) {
      const r = db.get(
        'SELECT id, name, display_name, acronym, description, created, architecture, boundaries FROM subsystems WHERE name = ?',
        name,
      );
      if (!r) return undefined;
      const id = Number(r.id);
      const feature: Feature = {
        name: String(r.name),
        display_name: String(r.display_name),
        acronym: String(r.acronym),
        description: typeof r.description === 'string' ? r.description : null,
        created: typeof r.created === 'string' ? r.created : null,
        knowledge_paths: readList(id, 'knowledge_paths'),
        context_files: readList(id, 'context_files'),
        architecture: typeof r.architecture === 'string' ? r.architecture : null,
        boundaries: typeof r.boundaries === 'string' ? r.boundaries : null,
        learnings: learningRows(id).map((l) => publicLearning(normalizeLearning(l)!)),
        dependencies: db
          .all<{ name: string }>(
            'SELECT s.name FROM subsystem_dependencies d JOIN subsystems s ON s.id = d.depends_on_subsystem_id WHERE d.subsystem_id = ? ORDER BY d.id',
            id,
          )
          .map((x) => x.name),
      };
      return feature;
    },
    featureName(name) {
      return db.get<{ name: string }>('SELECT name FROM subsystems WHERE name = ?', name)?.name;
    },
    featureNames(limit) {
      return db
        .all<{ name: string }>('SELECT name FROM subsystems ORDER BY name LIMIT CAST(? AS INTEGER)', limit)
        .map((r) => r.name);
    },
    createFeature(f) {
      const id = Number(
        db.run(
          `INSERT INTO subsystems (name, display_name, acronym, description, architecture, boundaries, status, created)
           VALUES (@name, @display_name, @acronym, @description, @architecture, @boundaries, 'active', @created)`,
          {
            name: f.name,
            display_name: f.display_name,
            acronym: f.acronym,
            description: f.description,
            architecture: f.architecture,
            boundaries: f.boundaries,
            created: today(),
          },
        ).lastInsertRowid,
      );
      writeList(id, 'knowledge_paths', f.knowledge_paths);
      writeList(id, 'context_files', f.context_files);
      writeDependencies(id, f.dependencies);
    },
    updateFeature(name, changes: FeatureChanges) {
      const id = subsystemId(db, name);
      for (const c of COLUMNS) if (changes[c] !== undefined) db.run(UPDATE_SQL[c], changes[c], id);
      if (changes.knowledge_paths !== undefined) writeList(id, 'knowledge_paths', changes.knowledge_paths);
      if (changes.context_files !== undefined) writeList(id, 'context_files', changes.context_files);
      if (changes.dependencies !== undefined) writeDependencies(id, changes.dependencies);
    },
    deleteFeature(name) {
      const id = subsystemId(db, name);
      if (hasOwnTables(db))
        db.run(
          'DELETE FROM ralph_mcp_learning_meta WHERE comment_id IN (SELECT id FROM subsystem_comments WHERE subsystem_id = ?)',
          id,
        );
      // Its lists, comments and dependency rows go with it (ON DELETE CASCADE), as in Ralph's own delete.
      db.run('DELETE FROM subsystems WHERE id = ?', id);
    },
    featureTaskCount(name) {
      return db.get<{ n: number }>(
        'SELECT count(*) AS n FROM runtime_tasks WHERE subsystem_id = (SELECT id FROM subsystems WHERE name = ?)',
        name,
      )!.n;
    },
    featureDependents(name) {
      return db
        .all<{ name: string }>(
          'SELECT s.name FROM subsystem_dependencies d JOIN subsystems s ON s.id = d.subsystem_id WHERE d.depends_on_subsystem_id = (SELECT id FROM subsystems WHERE name = ?) ORDER BY s.name',
          name,
        )
        .map((r) => r.name);
    },
    featureDependencies(name) {
      return db
        .all<{ name: string }>(
          'SELECT s.name FROM subsystem_dependencies d JOIN subsystems s ON s.id = d.depends_on_subsystem_id WHERE d.subsystem_id = (SELECT id FROM subsystems WHERE name = ?) ORDER BY d.id',
          name,
        )
        .map((r) => r.name);
    },
    featureContextFileItems: (name) => readList(subsystemId(db, name), 'context_files'),
    writeFeatureContextFiles(name, items) {
      writeList(subsystemId(db, name), 'context_files', items);
    },
    learningItems: (name) => learningRows(subsystemId(db, name)),
    writeLearningItems(name, items, by: Writer) {
      ensureOwnTables(db, 'normalized', NORMALIZED_MIRROR);
      const id = subsystemId(db, name);
      const before = new Map(learningRows(id).map((l) => [l[ITEM_IDENTITY] as number, l]));
      const disciplineId =
        by.discipline !== null
          ? (db.get<{ id: number }>('SELECT id FROM disciplines WHERE name = ?', by.discipline)?.id ?? null)
          : null;
      const kept = new Set<number>();
      for (const raw of items) {
        const item = raw as Identified;
        const rowId = item[ITEM_IDENTITY] as number | undefined;
        if (rowId !== undefined && before.has(rowId)) {
          kept.add(rowId);
          if (JSON.stringify(item) === JSON.stringify(before.get(rowId))) continue;
          db.run(
            // The summary too: Ralph's prompts show it instead of the body, so a replaced text never keeps
            // the old one's.
            'UPDATE subsystem_comments SET body = ?, summary = ?, reason = ?, updated = ? WHERE id = ?',
            item.text,
            item.summary ?? null,
            item.reason ?? null,
            timestamp(),
            rowId,
          );
          writeMeta(rowId, item);
          continue;
        }
        const comment = Number(
          db.run(
            `INSERT INTO subsystem_comments (subsystem_id, category, discipline_id, agent_task_id, body, summary, reason, source_iteration, created)
             VALUES (?, 'learning', ?, ?, ?, ?, ?, ?, ?)`,
            id,
            disciplineId,
            item.task_id ?? null,
            item.text,
            item.summary ?? null,
            item.reason ?? null,
            item.iteration ?? null,
            item.created || timestamp(),
          ).lastInsertRowid,
        );
        writeMeta(comment, item);
      }
      // Pruned ones (merge only prunes what it may: unreviewed `auto` learnings seen once).
      for (const rowId of before.keys()) {
        if (kept.has(rowId)) continue;
        db.run('DELETE FROM ralph_mcp_learning_meta WHERE comment_id = ?', rowId);
        db.run('DELETE FROM subsystem_comments WHERE id = ?', rowId);
      }
    },
  };

  function writeMeta(commentId: number, l: Learning): void {
    db.run(
      `INSERT INTO ralph_mcp_learning_meta (comment_id, source, hit_count, reviewed, review_count, extra) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (comment_id) DO UPDATE SET source = excluded.source, hit_count = excluded.hit_count, reviewed = excluded.reviewed, review_count = excluded.review_count, extra = excluded.extra`,
      commentId,
      l.source,
      l.hit_count,
      l.reviewed ? 1 : 0,
      l.review_count,
      extraOf(l as unknown as Record<string, unknown>),
    );
  }
}
