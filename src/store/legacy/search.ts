import type { Db } from '../../db/database.js';
import type { SearchHit } from '../records.js';
import { BM25, SNIPPET, syncSearchIndex, type SearchSource } from '../own/search.js';
import type { TaskQuery } from '../store.js';
import { filterSql } from './tasks.js';

/** What search_tasks indexes on the legacy generation: the task row, its JSON criteria and its comments. */
const INDEX_ROWS = `
  SELECT t.id, t.title, coalesce(t.description, ''), coalesce(t.hints, ''),
    coalesce((SELECT group_concat(value, char(10)) FROM json_each(CASE WHEN json_valid(t.acceptance_criteria) THEN t.acceptance_criteria ELSE '[]' END)), ''),
    coalesce((SELECT group_concat(body, char(10)) FROM task_comments c WHERE c.task_id = t.id), '')
  FROM tasks t`;
const SOURCE: SearchSource = { generation: 'legacy', indexRows: INDEX_ROWS, indexRow: `${INDEX_ROWS} WHERE t.id = ?` };

/**
 * With filters, every match is joined to its task to be filtered, then ranked. Without, the index
 * ranks alone and only the best `limit` are joined to their tasks (a common query matches thousands).
 */
const searchSql = (q: TaskQuery) =>
  filterSql(q).clauses.length === 0
    ? `
  SELECT t.id, t.title, t.status, t.priority, t.feature, t.discipline, r.score, r.snippet
  FROM (SELECT rowid, ${BM25} AS score, ${SNIPPET} AS snippet FROM ralph_mcp_search WHERE ralph_mcp_search MATCH @q ORDER BY score LIMIT @limit) r
  JOIN tasks t ON t.id = r.rowid
  ORDER BY r.score`
    : `
  SELECT t.id, t.title, t.status, t.priority, t.feature, t.discipline,
    ${BM25} AS score, ${SNIPPET} AS snippet
  FROM ralph_mcp_search JOIN tasks t ON t.id = ralph_mcp_search.rowid
  WHERE ralph_mcp_search MATCH @q ${filterSql(q, 't').clauses.map((c) => `AND ${c}`).join(' ')}
  ORDER BY score LIMIT @limit`;

export function legacySearch(db: Db) {
  return {
    searchTasks(fts: string, q: TaskQuery, limit: number): SearchHit[] {
      syncSearchIndex(db, SOURCE);
      return db.all<SearchHit>(searchSql(q), { ...filterSql(q).params, q: fts, limit });
    },
  };
}
