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
import { filterSql } from './tasks.js';
import { LEGACY_MIRROR } from './listMirrors.js';

/** What search_tasks indexes on the legacy generation: the task row, its JSON criteria and its comments. */
const INDEX_ROWS = `
  SELECT t.id, t.title, coalesce(t.description, ''), coalesce(t.hints, ''),
    coalesce((SELECT group_concat(value, char(10)) FROM json_each(CASE WHEN json_valid(t.acceptance_criteria) THEN t.acceptance_criteria ELSE '[]' END)), ''),
    coalesce((SELECT group_concat(body, char(10)) FROM task_comments c WHERE c.task_id = t.id), '')
  FROM tasks t`;
const SOURCE: SearchSource = {
  generation: 'legacy',
  indexRows: INDEX_ROWS,
  indexRowsOf: `${INDEX_ROWS} WHERE t.id IN (SELECT value FROM json_each(@ids))`,
  titles: 'SELECT id, title FROM tasks',
  titlesOf: 'SELECT id, title FROM tasks WHERE id IN (SELECT value FROM json_each(@ids))',
};

/** The hits' rows, by the JSON array of ids @ids. */
const TITLE_HEADS =
  'SELECT id, title, status, priority, feature, discipline FROM tasks WHERE id IN (SELECT value FROM json_each(@ids))';

/** A match joined to its task only when a filter needs the task's columns. */
const shapeOf = (q: TaskQuery): SearchShape => {
  const f = filterSql(q, 't');
  return {
    join: 'JOIN tasks t ON t.id = ralph_mcp_search.rowid',
    filter: { clauses: f.clauses, params: f.params },
    headsSql: TITLE_HEADS,
  };
};

export function legacySearch(db: Db): SearchStore {
  return {
    searchTasks(fts: string, q: TaskQuery, limit: number, budgetMs?: number): SearchHit[] {
      return boundedSearch(db, SOURCE, LEGACY_MIRROR, shapeOf(q), fts, limit, budgetMs);
    },
    prepareSearch: () => void catchUpSearchIndex(db, SOURCE, LEGACY_MIRROR, SEARCH_BOUNDS.catchUpRows),
    catchUp: (maxRows: number) => catchUpSearchIndex(db, SOURCE, LEGACY_MIRROR, maxRows),
    titleLookup: (): TitleLookup => titleLookup(db, SOURCE, LEGACY_MIRROR),
    titleHeads: (ids: readonly number[]): TitleMatch[] => headsInOrder(db, TITLE_HEADS, ids),
  };
}
