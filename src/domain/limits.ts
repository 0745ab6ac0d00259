/**
 * The limits docs/reference.md lists, in one table: the code that enforces each reads it from here, and
 * `npm run docs` writes the reference's tables from it (scripts/referenceTables.ts), so the two cannot
 * differ. Each argument's own size limit lives in the tools' input schemas (src/tools/fields.ts), which
 * the same script reads.
 */

/** Tools that answer a page at a time: the largest page an argument asks for, and the page without it. */
export const PAGES = {
  'list_tasks.limit': { default: 50, max: 500 },
  'next_tasks.limit': { default: 5, max: 20 },
  'search_tasks.limit': { default: 20, max: 100 },
  'blocked_tasks.limit': { default: 20, max: 100 },
  'get_task.comment_limit': { default: 20, max: 100 },
  'task_history.limit': { default: 50, max: 200 },
  'get_dependency_details.depth': { default: 3, max: 10 },
} as const;

/** What one request may cost, whatever its arguments, so that it cannot stall a shared server's other sessions. */
export const REQUEST_BOUNDS = {
  /**
   * One JSON-RPC message (a line) from a client, in bytes (10 MiB): the SDK's own read-buffer limit. Every
   * value here is a literal, which the SQL static check (test/contract/security.sql.test.ts) takes as constant.
   */
  messageBytes: 10_485_760,
  search: {
    /** Distinct words searched; the rest are answered as `ignored_words`. */
    words: 8,
    /** Words this long (code points) also match as prefixes. */
    prefixMin: 4,
    /** The newest matches ranked, per ranking (title matches rank in a window of their own). */
    window: 300,
    /** Past this, a search stops with `invalid_argument`. */
    budgetMs: 60,
  },
  /** Items of each stored list a read returns; a task with more dependencies is never offered to a claim. */
  storedListItems: 1_000,
  /** `ready_remaining` (and list_tasks' `total` with `ready`) count up to this many. */
  readyCount: 1_000,
  /** task_brief's comments, in characters of their JSON: the task's own, its dependencies', each body. */
  brief: { comments: 20_000, dependencyComments: 20_000, body: 4_000 },
  /** One audit row, in UTF-8 bytes: refused calls are recorded too, whatever their size. */
  audit: { toolBytes: 64, argsBytes: 4_096 },
} as const;
