import type { Db } from '../../db/database.js';
import type { SearchHit, TitleLookup, TitleMatch } from '../records.js';
import {
  boundedSearch,
  catchUpSearchIndex,
  headsInOrder,
  titleLookup,
  type SearchShape,
  type SearchSource,
} from '../own/search.js';
import type { SearchStore, TaskQuery } from '../store.js';
import { SEARCH_BOUNDS } from '../searchBounds.js';
import { DETAIL_JOINS, filterSql } from './sql.js';
import { NORMALIZED_MIRROR } from './facets.js';

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
const SOURCE: SearchSource = {
  generation: 'normalized',
  indexRows: INDEX_ROWS,
  indexRowsOf: `${INDEX_ROWS} WHERE t.id IN (SELECT value FROM json_each(@ids))`,
  titles: 'SELECT t.id, d.title FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id',
  titlesOf:
    'SELECT t.id, d.title FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id WHERE t.id IN (SELECT value FROM json_each(@ids))',
};

/** The hits' rows, by the JSON array of ids @ids. */
const TITLE_HEADS = `SELECT t.id, d.title, t.status, d.priority, s.name AS feature, di.name AS discipline FROM runtime_tasks t ${DETAIL_JOINS} WHERE t.id IN (SELECT value FROM json_each(@ids))`;

/** A match joined to its task (and its details, for a discipline filter) only when a filter needs it. */
const shapeOf = (q: TaskQuery): SearchShape => {
  const f = filterSql(q);
  return {
    join: `JOIN runtime_tasks t ON t.id = ralph_mcp_search.rowid ${DETAIL_JOINS}`,
    filter: { clauses: f.clauses, params: f.params },
    headsSql: TITLE_HEADS,
  };
};

export function normalizedSearch(db: Db): SearchStore {
  return {
    searchTasks(fts: string, q: TaskQuery, limit: number, budgetMs?: number): SearchHit[] {
      return boundedSearch(db, SOURCE, NORMALIZED_MIRROR, shapeOf(q), fts, limit, budgetMs);
    },
    prepareSearch: () => void catchUpSearchIndex(db, SOURCE, NORMALIZED_MIRROR, SEARCH_BOUNDS.catchUpRows),
    catchUp: (maxRows: number) => catchUpSearchIndex(db, SOURCE, NORMALIZED_MIRROR, maxRows),
    titleLookup: (): TitleLookup => titleLookup(db, SOURCE, NORMALIZED_MIRROR),
    titleHeads: (ids: readonly number[]): TitleMatch[] => headsInOrder(db, TITLE_HEADS, ids),
  };
}
