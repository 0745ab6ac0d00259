/**
 * What bounds one search's cost (the server is single-threaded: while one search runs, no other
 * session is answered). bm25 costs tens of microseconds per matching row and phrase, so ranking every
 * match of a common word over 100,000 tasks took seconds: only the newest `window` matches (by task id)
 * are ranked, for the title and for all columns separately (so title matches are never crowded out).
 * `budgetMs` is the backstop for what the window cannot bound (iterating long doclists, a selective
 * filter that skips most matches): every row the queries visit checks the clock, and the search stops
 * with an error past it. better-sqlite3 has no progress handler, hence a SQL function (Bun's driver has
 * neither: there the clock is read after each statement).
 */
export const SEARCH_BOUNDS = { window: 300, budgetMs: 60 } as const;
