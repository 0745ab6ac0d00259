import { z } from 'zod';
import { invalid } from '../errors.js';
import { READ, defineTool } from '../registry/types.js';
import { LIMITS, status } from './fields.js';
import { taskQuery } from './tasks.js';

/**
 * search_tasks: ranked full-text search (SQLite FTS5, bm25) over titles, descriptions, hints,
 * acceptance criteria and comments. The index lives in our own table and follows Ralph's writes
 * through a change queue (see src/store/own/search.ts): each search first re-indexes queued tasks.
 */

/**
 * The caller's words, each quoted as an FTS5 string with a prefix star: quotes, operators (AND, OR,
 * NEAR, -, *, :) and column filters in the query are searched as plain words, never interpreted.
 */
export function ftsQuery(query: string, mode: 'all' | 'any'): string | undefined {
  const words = query.match(/[\p{L}\p{M}\p{N}_]+/gu);
  if (!words) return undefined;
  return words.map((w) => `"${w}"*`).join(mode === 'all' ? ' ' : ' OR ');
}

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
  handler(args, ctx) {
    const query = taskQuery(ctx, { status: args.status, feature: args.feature, discipline: args.discipline });
    const all = ftsQuery(args.query, 'all');
    if (!all) throw invalid('query has no searchable words (letters or digits)');
    const run = (q: string) => ctx.store.searchTasks(q, query, args.limit ?? 20);
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
