/**
 * What bounds one search's cost, since no other session is answered while it runs: only the newest `window`
 * matches are ranked (for the title and for all columns separately, so title matches are never crowded out),
 * and past `budgetMs` the search stops with an error, a backstop for what the window cannot bound.
 */
export const SEARCH_BOUNDS = { window: 300, budgetMs: 60 } as const;
