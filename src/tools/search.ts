import { z } from 'zod';
import { invalid } from '../domain/errors.js';
import { once, READ, defineTool } from '../toolkit/tool.js';
import { LIMITS, status } from './fields.js';
import { SEARCH_BOUNDS } from '../store/searchBounds.js';
import { taskQuery } from './tasks.js';
import { fieldsArg, pickRow, rowKeys } from './rowFields.js';
import { PAGES, REQUEST_BOUNDS } from '../domain/limits.js';

const PAGE = PAGES['search_tasks.limit'];

/**
 * search_tasks: ranked full-text search (SQLite FTS5, bm25) over titles, descriptions, hints,
 * acceptance criteria and comments. The index lives in our own table and follows Ralph's writes
 * through a change queue (see src/store/own/search.ts): each search first re-indexes a bounded chunk of
 * queued tasks, and says how many it left out (index_behind) when more were queued.
 */

/**
 * What one query may ask of the index, since a search costs more with each term and each word a prefix
 * expands to: at most `terms` distinct words, and a word shorter than `prefixMin` matches only whole
 * ("a*" expands to every word starting with a).
 */
export const QUERY_BOUNDS = { terms: REQUEST_BOUNDS.search.words, prefixMin: REQUEST_BOUNDS.search.prefixMin } as const;

/**
 * The caller's words, each quoted as an FTS5 string (with a prefix star from QUERY_BOUNDS.prefixMin
 * letters on): quotes, operators (AND, OR, NEAR, -, *, :) and column filters in the query are searched
 * as plain words, never interpreted. Words are compared case-folded, as the index does, and deduplicated.
 */
export function ftsTerms(query: string): { terms: string[]; ignored: string[] } {
  const seen = new Set<string>();
  const terms: string[] = [];
  const ignored: string[] = [];
  for (const w of query.match(/[\p{L}\p{M}\p{N}_]+/gu) ?? []) {
    const key = w.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    (terms.length < QUERY_BOUNDS.terms ? terms : ignored).push(w);
  }
  return { terms, ignored };
}

/** Whether a word is long enough to match as a prefix too (code points, as the tokenizer counts them). */
const prefixable = (w: string): boolean => Array.from(w).length >= QUERY_BOUNDS.prefixMin;

/** The FTS5 query of `terms`, every word or any; `prefixes`: words of prefixMin letters on also match as prefixes. */
export function ftsQuery(terms: readonly string[], mode: 'all' | 'any', prefixes = true): string | undefined {
  if (terms.length === 0) return undefined;
  const quoted = terms.map((w) => (prefixes && prefixable(w) ? `"${w}"*` : `"${w}"`));
  return quoted.join(mode === 'all' ? ' ' : ' OR ');
}

const Hit = once(() =>
  z.object({
    id: z.number().int(),
    title: z.string(),
    status: z.string(),
    priority: z.string().nullable(),
    feature: z.string(),
    discipline: z.string(),
    score: z.number(),
    snippet: z.string(),
  }),
);
/** The keys of a hit `fields` may name. */
const HIT_FIELDS = ['id', 'title', 'status', 'priority', 'feature', 'discipline', 'score', 'snippet'];

export const searchTasks = defineTool({
  name: 'search_tasks',
  title: 'Search tasks',
  category: 'tasks',
  description: 'Full-text search of task text and comments, best match first. Finds related or duplicate work.',
  input: () =>
    z.strictObject({
      query: z.string().min(1).max(500).describe('All words match, else any'),
      status: status().optional(),
      feature: z.string().max(LIMITS.name).optional(),
      discipline: z.string().max(LIMITS.name).optional(),
      limit: z.number().int().min(1).max(PAGE.max).optional().describe(`1-${PAGE.max}, default ${PAGE.default}`),
      fields: fieldsArg(),
    }),
  output: () =>
    z.object({
      // Any key but id may be left out by `fields`.
      results: z.array(Hit().partial().required({ id: true })),
      matched: z.enum(['all', 'any', 'none']),
      /** Words past QUERY_BOUNDS.terms, not searched (absent when every word was). */
      ignored_words: z.array(z.string()).optional(),
      /** Changed tasks not yet re-indexed, left out of results (absent when none). */
      index_behind: z.number().int().optional(),
    }),
  annotations: READ,
  updatesIndex: true,
  handler(args, ctx) {
    const keys = rowKeys(args.fields, HIT_FIELDS);
    const query = taskQuery(ctx, { status: args.status, feature: args.feature, discipline: args.discipline });
    const { terms, ignored } = ftsTerms(args.query);
    const all = ftsQuery(terms, 'all');
    if (!all) throw invalid('query has no searchable words (letters or digits)');
    // A bounded chunk of the queue, before the time budget starts: what is left waits for later calls
    // (or the server's slices between requests) and is left out of this answer.
    const behind = ctx.store.search.catchUp(SEARCH_BOUNDS.catchUpRows);
    // The search's reads see one state (store.read), taken after the catch-up's write.
    return ctx.store.read(() => {
      // One time budget for the whole call: the any-word fallback gets what the all-word search left.
      const started = performance.now();
      const limit = args.limit ?? PAGE.default;
      const run = (q: string) =>
        ctx.store.search.searchTasks(
          q,
          query,
          limit,
          Math.max(1, SEARCH_BOUNDS.budgetMs - (performance.now() - started)),
        );
      // Whole words first: a prefix makes FTS5 merge the postings of every word it starts before ranking,
      // so it runs only when the words alone do not fill the page.
      const wordsThenPrefixes = (mode: 'all' | 'any') => {
        const words = run(ftsQuery(terms, mode, false)!);
        return words.length >= limit || !terms.some(prefixable) ? words : run(ftsQuery(terms, mode)!);
      };
      let results = wordsThenPrefixes('all');
      let matched: 'all' | 'any' | 'none' = 'all';
      if (results.length === 0 && terms.length > 1) {
        results = wordsThenPrefixes('any');
        matched = results.length > 0 ? 'any' : 'none';
      } else if (results.length === 0) matched = 'none';
      // bm25 is "lower is better" and negative; report a positive relevance, higher is better.
      return {
        results: results.map((r) => pickRow({ ...r, score: Math.round(-r.score * 1000) / 1000 }, keys)),
        matched,
        ...(ignored.length > 0 ? { ignored_words: ignored } : {}),
        ...(behind > 0 ? { index_behind: behind } : {}),
      };
    });
  },
});
