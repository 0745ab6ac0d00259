import { z } from 'zod';
import type { Db } from '../db/database.js';
import { ensureSearchIndex } from '../db/ownSchema.js';
import { invalid } from '../errors.js';
import { READ, defineTool } from '../registry/types.js';
import { LIMITS, status } from './fields.js';
import { taskFilters, type TaskFilters } from './taskFilters.js';

/**
 * search_tasks: ranked full-text search (SQLite FTS5, bm25) over titles, descriptions, hints,
 * acceptance criteria and comments. The index lives in our own table and follows Ralph's writes
 * through a change queue (schema/ralph-mcp-search.sql): each search first re-indexes queued tasks.
 */

/** bm25 column weights: a title hit outranks a description hit, which outranks a comment hit. */
const WEIGHTS = '10.0, 4.0, 2.0, 2.0, 1.0';

const INDEX_ROW_SQL = `
  SELECT t.id, t.title, coalesce(t.description, ''), coalesce(t.hints, ''),
    coalesce((SELECT group_concat(value, char(10)) FROM json_each(CASE WHEN json_valid(t.acceptance_criteria) THEN t.acceptance_criteria ELSE '[]' END)), ''),
    coalesce((SELECT group_concat(body, char(10)) FROM task_comments c WHERE c.task_id = t.id), '')
  FROM tasks t`;
const INSERT_SQL = 'INSERT INTO ralph_mcp_search (rowid, title, description, hints, acceptance, comments)';

function reindexAll(db: Db): void {
  db.run('DELETE FROM ralph_mcp_search');
  db.run(`${INSERT_SQL} ${INDEX_ROW_SQL}`);
  db.run('DELETE FROM ralph_mcp_search_dirty');
}

/** Brings the index up to date with every write since the last search (ours, Ralph's, anyone's). */
export function syncSearchIndex(db: Db): void {
  ensureSearchIndex(db, () => reindexAll(db));
  if (!db.get('SELECT 1 AS x FROM ralph_mcp_search_dirty LIMIT 1')) return;
  db.write(() => {
    for (const { task_id } of db.all<{ task_id: number }>('SELECT task_id FROM ralph_mcp_search_dirty')) {
      db.run('DELETE FROM ralph_mcp_search WHERE rowid = ?', task_id);
      db.run(`${INSERT_SQL} ${INDEX_ROW_SQL} WHERE t.id = ?`, task_id);
    }
    db.run('DELETE FROM ralph_mcp_search_dirty');
  });
}

/**
 * The caller's words, each quoted as an FTS5 string with a prefix star: quotes, operators (AND, OR,
 * NEAR, -, *, :) and column filters in the query are searched as plain words, never interpreted.
 */
export function ftsQuery(query: string, mode: 'all' | 'any'): string | undefined {
  const words = query.match(/[\p{L}\p{M}\p{N}_]+/gu);
  if (!words) return undefined;
  return words.map((w) => `"${w}"*`).join(mode === 'all' ? ' ' : ' OR ');
}

const searchSql = (filters: TaskFilters) => `
  SELECT t.id, t.title, t.status, t.priority, t.feature, t.discipline,
    bm25(ralph_mcp_search, ${WEIGHTS}) AS score,
    snippet(ralph_mcp_search, -1, '[', ']', '…', 12) AS snippet
  FROM ralph_mcp_search JOIN tasks t ON t.id = ralph_mcp_search.rowid
  WHERE ralph_mcp_search MATCH @q ${filters.clauses('t').map((c) => `AND ${c}`).join(' ')}
  ORDER BY score LIMIT @limit`;

const Hit = z.object({
  id: z.number().int(),
  title: z.string(),
  status: z.string(),
  priority: z.string().nullable(),
  feature: z.string(),
  discipline: z.string(),
  score: z.number(),
  snippet: z.string(),
});

export const searchTasks = defineTool({
  name: 'search_tasks',
  title: 'Search tasks',
  category: 'tasks',
  description:
    'Full-text search of tasks (title, description, hints, criteria, comments), best match first. Finds related or duplicate work.',
  input: z.strictObject({
    query: z.string().min(1).max(500).describe('Words to find (all of them; falls back to any)'),
    status: status.optional(),
    feature: z.string().max(LIMITS.name).optional(),
    discipline: z.string().max(LIMITS.name).optional(),
    limit: z.number().int().min(1).max(100).optional().describe('1-100, default 20'),
  }),
  output: z.object({ results: z.array(Hit), matched: z.enum(['all', 'any', 'none']) }),
  annotations: READ,
  handler(args, { db }) {
    const filters = taskFilters(db, { status: args.status, feature: args.feature, discipline: args.discipline });
    const all = ftsQuery(args.query, 'all');
    if (!all) throw invalid('query has no searchable words (letters or digits)');
    syncSearchIndex(db);
    const run = (q: string) => db.all<z.infer<typeof Hit>>(searchSql(filters), { ...filters.params, q, limit: args.limit ?? 20 });
    let results = run(all);
    let matched: 'all' | 'any' | 'none' = 'all';
    if (results.length === 0) {
      results = run(ftsQuery(args.query, 'any')!);
      matched = results.length > 0 ? 'any' : 'none';
    }
    // bm25 is "lower is better" and negative; report a positive relevance, higher is better.
    return { results: results.map((r) => ({ ...r, score: Math.round(-r.score * 1000) / 1000 })), matched };
  },
});
