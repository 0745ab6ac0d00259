import type { Db } from '../../db/database.js';
import { timestamp } from '../../domain/rules.js';
import { KNOWLEDGE_COLUMNS, knowledgeFromRow } from '../own/knowledge.js';
import type { FeatureStore } from '../store.js';
import { subsystemId } from './sql.js';

/**
 * Feature knowledge on the normalized generation: Ralph's subsystem_comments, every category, read as
 * its get_all_comments_by_subsystem reads them (newest first) and written as its add_subsystem_comment
 * writes them (RFC 3339 `created`, the discipline by id).
 */

const SELECT = `SELECT ${KNOWLEDGE_COLUMNS}, d.name AS discipline
  FROM subsystem_comments c LEFT JOIN disciplines d ON d.id = c.discipline_id`;

export function normalizedKnowledge(db: Db): Pick<FeatureStore, 'knowledge' | 'addKnowledge'> {
  return {
    knowledge(name) {
      return db
        .all(`${SELECT} WHERE c.subsystem_id = ? ORDER BY c.id DESC`, subsystemId(db, name))
        .map(knowledgeFromRow);
    },
    addKnowledge(name, entry) {
      const disciplineId =
        entry.discipline !== null
          ? (db.get<{ id: number }>('SELECT id FROM disciplines WHERE name = ?', entry.discipline)?.id ?? null)
          : null;
      const id = Number(
        db.run(
          `INSERT INTO subsystem_comments
             (subsystem_id, category, discipline_id, agent_task_id, body, summary, reason, created)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          subsystemId(db, name),
          entry.category,
          disciplineId,
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
