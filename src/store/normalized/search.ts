import type { Db } from '../../db/database.js';
import type { SearchHit } from '../records.js';
import { BM25, SNIPPET, syncSearchIndex, type SearchSource } from '../own/search.js';
import type { TaskQuery } from '../store.js';
import { DETAIL_JOINS, filterSql } from './sql.js';

/**
 * What search_tasks indexes on the normalized generation: the task's details, its criteria in order,
 * and what its signals say (comments are signals here). Our triggers on those tables
 * (schema/ralph-mcp-search-normalized.sql) queue every changed task.
 */
const INDEX_ROWS = `
  SELECT t.id, d.title, coalesce(d.description, ''), coalesce(d.hints, ''),
    coalesce((SELECT group_concat(criterion, char(10)) FROM (SELECT criterion FROM task_acceptance_criteria WHERE task_id = t.id ORDER BY criterion_order, id)), ''),
    coalesce((SELECT group_concat(coalesce(sg.text, sg.summary, sg.reason, sg.question, sg.what, sg."on", ''), char(10)) FROM task_signals sg WHERE sg.task_id = t.id), '')
  FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id`;
const SOURCE: SearchSource = { generation: 'normalized', indexRows: INDEX_ROWS, indexRow: `${INDEX_ROWS} WHERE t.id = ?` };

/**
 * With filters, every match is joined to its task to be filtered, then ranked. Without, the index
 * ranks alone and only the best `limit` are joined to their tasks (a common query matches thousands).
 */
const searchSql = (q: TaskQuery) =>
  filterSql(q).clauses.length === 0
    ? `
  SELECT t.id, d.title, t.status, d.priority, s.name AS feature, di.name AS discipline, r.score, r.snippet
  FROM (SELECT rowid, ${BM25} AS score, ${SNIPPET} AS snippet FROM ralph_mcp_search WHERE ralph_mcp_search MATCH @q ORDER BY score LIMIT @limit) r
  JOIN runtime_tasks t ON t.id = r.rowid
  ${DETAIL_JOINS}
  ORDER BY r.score`
    : `
  SELECT t.id, d.title, t.status, d.priority, s.name AS feature, di.name AS discipline,
    ${BM25} AS score, ${SNIPPET} AS snippet
  FROM ralph_mcp_search JOIN runtime_tasks t ON t.id = ralph_mcp_search.rowid
  ${DETAIL_JOINS}
  WHERE ralph_mcp_search MATCH @q ${filterSql(q).clauses.map((c) => `AND ${c}`).join(' ')}
  ORDER BY score LIMIT @limit`;

export function normalizedSearch(db: Db) {
  return {
    searchTasks(fts: string, q: TaskQuery, limit: number): SearchHit[] {
      syncSearchIndex(db, SOURCE);
      return db.all<SearchHit>(searchSql(q), { ...filterSql(q).params, q: fts, limit });
    },
  };
}
