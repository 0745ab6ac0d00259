import type { Db } from '../../db/database.js';
import { normalizeLearning, type Learning } from '../../domain/learnings.js';
import { timestamp } from '../../domain/rules.js';
import { parseJsonArray } from '../json.js';
import { KNOWLEDGE_COLUMNS, knowledgeFromRow } from '../own/knowledge.js';
import { ensureOwnTables } from '../own/schema.js';
import type { KnowledgeEntry } from '../records.js';
import type { FeatureStore } from '../store.js';
import { LEGACY_MIRROR } from './listMirrors.js';

/**
 * Feature knowledge on the legacy generation (docs/knowledge.md). Ralph 936f316 keeps only learnings
 * (features.learnings, JSON); the other categories live in our ralph_mcp_feature_knowledge, with the
 * columns of Ralph's later subsystem_comments, until a migration moves them there. Both read newest first,
 * as Ralph's head reads its comments: our rows by id, learnings from the end of the list.
 */

const SELECT = `SELECT ${KNOWLEDGE_COLUMNS}, c.discipline FROM ralph_mcp_feature_knowledge c`;

/** Connections known to have our knowledge table (it is never dropped while a connection is open). */
const seen = new WeakSet<Db>();
function hasKnowledgeTable(db: Db): boolean {
  if (seen.has(db)) return true;
  const found =
    db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_feature_knowledge'") !==
    undefined;
  if (found) seen.add(db);
  return found;
}

/** A learning as an entry: it has no id, no discipline and no `updated` (an undated one: created null). */
function learningEntry(l: Learning): KnowledgeEntry {
  return {
    id: null,
    category: 'learning',
    text: l.text,
    summary: typeof l.summary === 'string' ? l.summary : null,
    reason: typeof l.reason === 'string' ? l.reason : null,
    discipline: null,
    task_id: typeof l.task_id === 'number' ? l.task_id : null,
    created: l.created || null,
    updated: null,
  };
}

export function legacyKnowledge(db: Db): Pick<FeatureStore, 'knowledge' | 'addKnowledge'> {
  return {
    knowledge(name) {
      const own = hasKnowledgeTable(db)
        ? db.all(`${SELECT} WHERE c.feature = ? ORDER BY c.id DESC`, name).map(knowledgeFromRow)
        : [];
      const learnings = parseJsonArray(
        db.get<{ v: unknown }>('SELECT learnings AS v FROM features WHERE name = ?', name)?.v,
      )
        .map(normalizeLearning)
        .filter((l): l is Learning => l !== undefined)
        .map(learningEntry)
        .reverse();
      return [...own, ...learnings];
    },
    addKnowledge(name, entry) {
      ensureOwnTables(db, 'legacy', LEGACY_MIRROR);
      const id = Number(
        db.run(
          `INSERT INTO ralph_mcp_feature_knowledge
             (feature, category, discipline, agent_task_id, body, summary, reason, created)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          name,
          entry.category,
          entry.discipline,
          entry.task_id,
          entry.text,
          entry.summary,
          entry.reason,
          timestamp(),
        ).lastInsertRowid,
      );
      return knowledgeFromRow(db.get(`${SELECT} WHERE c.id = ?`, id)!);
    },
  };
}
