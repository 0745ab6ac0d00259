import { REQUEST_BOUNDS } from '../domain/limits.js';

/**
 * What bounds one search's cost, since no other session is answered while it runs: only the newest `window`
 * matches are ranked (for the title and for all columns separately, so title matches are never crowded out),
 * and past `budgetMs` the search stops with an error, a backstop for what the window cannot bound.
 * The index's catch-up after others' writes is bounded too: `catchUpRows` queued tasks one request
 * re-indexes at most before it answers (the rest are left out of its answer, and said to be); `sliceRows`
 * what a server re-indexes per turn of its event loop between requests, each slice its own transaction,
 * while more than `pendingTitles` wait (so many a create compares one by one: creates are indexed in
 * batches, which keeps the FTS5 index to fewer segments).
 */
export const SEARCH_BOUNDS = {
  window: REQUEST_BOUNDS.search.window,
  budgetMs: REQUEST_BOUNDS.search.budgetMs,
  catchUpRows: 200,
  sliceRows: 100,
  pendingTitles: 32,
} as const;
