import type { Row } from '../../db/database.js';
import { KNOWLEDGE_CATEGORIES, type KnowledgeCategory, type KnowledgeEntry } from '../records.js';

/**
 * A knowledge row as an entry. Ralph's subsystem_comments (normalized) and our ralph_mcp_feature_knowledge
 * (legacy) share these columns; `discipline` is the discipline's name (joined on normalized, as stored on
 * legacy). Both tables' CHECKs allow only the seven categories; anything else would read as `learning`
 * rather than be dropped.
 */
export function knowledgeFromRow(r: Row): KnowledgeEntry {
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const category = (KNOWLEDGE_CATEGORIES as readonly unknown[]).includes(r.category)
    ? (r.category as KnowledgeCategory)
    : 'learning';
  return {
    id: Number(r.id),
    category,
    text: String(r.body),
    summary: str(r.summary),
    reason: str(r.reason),
    discipline: str(r.discipline),
    task_id: typeof r.agent_task_id === 'number' ? r.agent_task_id : null,
    created: str(r.created),
    updated: str(r.updated),
  };
}

/** The columns knowledgeFromRow reads, for a SELECT over either table (the alias `c`). */
export const KNOWLEDGE_COLUMNS = 'c.id, c.category, c.body, c.summary, c.reason, c.agent_task_id, c.created, c.updated';
