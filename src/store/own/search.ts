import type { Db } from '../../db/database.js';
import type { Generation } from '../records.js';
import { ensureSearchIndex } from './schema.js';

/**
 * The search index (FTS5, our table ralph_mcp_search) follows every write to Ralph's tables through a
 * change queue (ralph_mcp_search_dirty, filled by triggers of ours): each search first re-indexes the
 * queued tasks. What differs per generation is where a task's text lives: `indexRows` is a SELECT of
 * (id, title, description, hints, acceptance, comments) over the generation's tables, ending where a
 * `WHERE <task id> = ?` can be appended for one task.
 */
export interface SearchSource {
  generation: Generation;
  /** SELECT id, title, description, hints, acceptance, comments FROM ... (no WHERE). */
  indexRows: string;
  /** indexRows restricted to one task id (bound). */
  indexRow: string;
}

const INSERT_SQL = 'INSERT INTO ralph_mcp_search (rowid, title, description, hints, acceptance, comments)';

function reindexAll(db: Db, src: SearchSource): void {
  db.run('DELETE FROM ralph_mcp_search');
  db.run(`${INSERT_SQL} ${src.indexRows}`);
  db.run('DELETE FROM ralph_mcp_search_dirty');
}

/** Brings the index up to date with every write since the last search (ours, Ralph's, anyone's). */
export function syncSearchIndex(db: Db, src: SearchSource): void {
  ensureSearchIndex(db, src.generation, () => reindexAll(db, src));
  if (!db.get('SELECT 1 AS x FROM ralph_mcp_search_dirty LIMIT 1')) return;
  db.write(() => {
    for (const { task_id } of db.all<{ task_id: number }>('SELECT task_id FROM ralph_mcp_search_dirty')) {
      db.run('DELETE FROM ralph_mcp_search WHERE rowid = ?', task_id);
      db.run(`${INSERT_SQL} ${src.indexRow}`, task_id);
    }
    db.run('DELETE FROM ralph_mcp_search_dirty');
  });
}

/** bm25 column weights: a title hit outranks a description hit, which outranks a comment hit. */
export const BM25 = 'bm25(ralph_mcp_search, 10.0, 4.0, 2.0, 2.0, 1.0)';
export const SNIPPET = "snippet(ralph_mcp_search, -1, '[', ']', '…', 12)";

