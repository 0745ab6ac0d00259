import type { Db } from '../../db/database.js';
import type { Connection } from '../../db/sqlite.js';
import { ToolError } from '../../domain/errors.js';
import type { Generation, SearchHit, TitleKey, TitleLookup, TitleMatch } from '../records.js';
import { SEARCH_BOUNDS } from '../searchBounds.js';
import { ensureSearchIndex, type MirrorHooks } from './schema.js';
import { titleKey } from '../../domain/similarity.js';

/**
 * The search index (FTS5) follows every write to Ralph's tables, whoever writes, through a change queue our
 * triggers fill: each search first re-indexes the queued tasks. A generation says where a task's text lives.
 */
export interface SearchSource {
  generation: Generation;
  /** SELECT id, title, description, hints, acceptance, comments FROM ... (no WHERE). */
  indexRows: string;
  /** indexRows restricted to the tasks whose ids are in the JSON array @ids. */
  indexRowsOf: string;
  /** SELECT id, title of every task. */
  titles: string;
  /** SELECT id, title of the tasks whose ids are in the JSON array @ids. */
  titlesOf: string;
}

const INSERT_SQL = 'INSERT INTO ralph_mcp_search (rowid, title, description, hints, acceptance, comments)';
const INSERT_KEY = 'INSERT INTO ralph_mcp_title_keys (task_id, key) VALUES (?, ?)';

function reindexAll(db: Db, src: SearchSource): void {
  db.run('DELETE FROM ralph_mcp_search');
  db.run(`${INSERT_SQL} ${src.indexRows}`);
  rebuildTitleKeys(db, src);
  db.run('DELETE FROM ralph_mcp_search_dirty');
}

function rebuildTitleKeys(db: Db, src: SearchSource): void {
  db.run('DELETE FROM ralph_mcp_title_keys');
  for (const r of db.all<{ id: number; title: string | null }>(src.titles))
    db.run(INSERT_KEY, r.id, titleKey(r.title ?? ''));
  db.run("INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES ('title_keys', '1')");
}

const rebuilds = (db: Db, src: SearchSource) => ({
  all: () => reindexAll(db, src),
  titleKeys: () => rebuildTitleKeys(db, src),
});

/**
 * Re-indexes at most `maxRows` queued tasks, newest first, in one transaction, and returns how many stay
 * queued (0 rows: only counts, without the write lock): a rewrite of every task by another program is caught up a bounded chunk at a time, never inside
 * one request (docs/storage.md).
 */
export function catchUpSearchIndex(db: Db, src: SearchSource, mirror: MirrorHooks, maxRows: number): number {
  ensureSearchIndex(db, src.generation, mirror, rebuilds(db, src));
  if (!db.get('SELECT 1 AS x FROM ralph_mcp_search_dirty LIMIT 1')) return 0;
  if (maxRows <= 0) return queuedCount(db);
  return db.write(() => {
    const queued = db
      .all<{ task_id: number }>(
        'SELECT task_id FROM ralph_mcp_search_dirty ORDER BY task_id DESC LIMIT CAST(? AS INTEGER)',
        maxRows,
      )
      .map((r) => r.task_id);
    const ids = JSON.stringify(queued);
    db.run('DELETE FROM ralph_mcp_search WHERE rowid IN (SELECT value FROM json_each(?))', ids);
    db.run(`${INSERT_SQL} ${src.indexRowsOf}`, { ids });
    // The chunk's title keys, their titles read in one statement (a deleted task has none).
    db.run('DELETE FROM ralph_mcp_title_keys WHERE task_id IN (SELECT value FROM json_each(?))', ids);
    for (const r of db.all<{ id: number; title: string | null }>(src.titlesOf, { ids }))
      db.run(INSERT_KEY, r.id, titleKey(r.title ?? ''));
    db.run('DELETE FROM ralph_mcp_search_dirty WHERE task_id IN (SELECT value FROM json_each(?))', ids);
    return queuedCount(db);
  }, 'index');
}

/** How many tasks wait to be re-indexed. */
export const queuedCount = (db: Db): number =>
  db.get<{ n: number }>('SELECT count(*) AS n FROM ralph_mcp_search_dirty')?.n ?? 0;

/** bm25 column weights: a title hit outranks a description hit, which outranks a comment hit. */
export const BM25 = 'bm25(ralph_mcp_search, 10.0, 4.0, 2.0, 2.0, 1.0)';
/** Negative exactly when the title holds a match (every other column weighs nothing). */
const TITLE_BM25 = 'bm25(ralph_mcp_search, 1.0, 0.0, 0.0, 0.0, 0.0)';
/** A window's columns: each match's id and bm25 (RANKED_TITLE: and, by its sign, whether its title matched). */
const RANKED = `ralph_mcp_search.rowid AS id, ${BM25} AS score`;
const RANKED_TITLE = `${RANKED}, ${TITLE_BM25} AS t`;
/** The index's newest row (a task's id is its rowid). */
const NEWEST = '(SELECT rowid FROM ralph_mcp_search ORDER BY rowid DESC LIMIT 1)';
/** A match among the newest @recent tasks. */
const IN_RECENT = `AND ralph_mcp_search.rowid > ${NEWEST} - CAST(@recent AS INTEGER)`;
const COLUMNS = ['title', 'description', 'hints', 'acceptance', 'comments'] as const;
/** How much of each column a snippet looks at: a task's comments may be very long. */
const SNIPPET_SCAN = 20_000;
const TEXT_SQL = `SELECT rowid AS id, ${COLUMNS.map((c) => `substr(${c}, 1, ${SNIPPET_SCAN}) AS ${c}`).join(', ')} FROM ralph_mcp_search WHERE rowid IN (SELECT value FROM json_each(@ids))`;

/** A word as the index compares it (unicode61, remove_diacritics 2): case and diacritics folded. */
const fold = (w: string): string => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;

/** The quoted words of an FTS5 query of ours (ftsQuery), folded, each with whether it is a prefix. */
function termsOf(fts: string): { word: string; prefix: boolean }[] {
  return [...fts.matchAll(/"([^"]*)"(\*?)/g)].map((m) => ({ word: fold(m[1]!), prefix: m[2] === '*' }));
}

/**
 * What FTS5's snippet(…, '[', ']', '…', 12) gives: about 12 words around the first match, in the
 * first column that has one, matches in brackets, '…' where text was cut.
 */
export function snippet(
  columns: readonly string[],
  terms: readonly { word: string; prefix: boolean }[],
  size = 12,
): string {
  const hit = (w: string) => {
    const f = fold(w);
    return terms.some((t) => (t.prefix ? f.startsWith(t.word) : f === t.word));
  };
  for (const text of columns) {
    const words = [...text.matchAll(WORD)];
    const first = words.findIndex((m) => hit(m[0]));
    if (first < 0) continue;
    const start = Math.max(0, Math.min(first - Math.floor(size / 4), words.length - size));
    const end = Math.min(words.length, start + size);
    let out = start > 0 ? '…' : '';
    for (let i = start; i < end; i++) {
      const m = words[i]!;
      const gap = i === start ? '' : text.slice(words[i - 1]!.index! + words[i - 1]![0].length, m.index);
      const sep = gap.length > 10 ? `${gap.slice(0, 10)}…` : gap;
      out += sep + (hit(m[0]) ? `[${m[0]}]` : m[0]);
    }
    return out + (end < words.length ? '…' : '');
  }
  return '';
}

/** How one generation joins a match to its task (for the filters) and reads the hits' rows. */
export interface SearchShape {
  /** JOIN clauses from ralph_mcp_search to the task (alias t), when a filter needs them. */
  join: string;
  /** Filter clauses over the join, each "AND …"-able, and their bound parameters. */
  filter: { clauses: string[]; params: Record<string, string> };
  /** id, title, status, priority, feature, discipline of the tasks whose ids are in the JSON array @ids. */
  headsSql: string;
}

/** A condition on `row`: not a task waiting to be re-indexed. */
const NOT_QUEUED = (row: string) => `AND NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty q WHERE q.task_id = ${row})`;

export class SearchBudgetExceeded extends Error {}

const budgetOn = new WeakSet<Connection>();
let deadline = Infinity;

/** Past the deadline: stops the search (nothing is partly answered). */
function checkClock(): void {
  if (performance.now() > deadline) throw new SearchBudgetExceeded('search budget exceeded');
}

/**
 * The per-row clock check as a SQL condition on `row`: non-deterministic, so SQLite calls it for every row.
 * Bun's driver has no SQL functions and gets no condition: one statement may run past the budget there.
 */
function budgetCondition(db: Db, row: string): string {
  const raw = db.raw;
  if (!raw.fn) return '';
  if (!budgetOn.has(raw)) {
    raw.fn('ralph_mcp_budget', () => {
      checkClock();
      return 1;
    });
    budgetOn.add(raw);
  }
  return `AND ralph_mcp_budget(${row})`;
}

interface Ranked {
  id: number;
  score: number;
  /** Over every column: negative exactly when the title holds a match. */
  t?: number;
}

const best = <T extends { id: number; score: number }>(rows: readonly T[], n: number): T[] =>
  [...rows].sort((a, b) => a.score - b.score || b.id - a.id).slice(0, n);

/** What a search asks the index about the matches of an FTS5 query. */
interface WindowQueries {
  /** The newest `window` matches with their bm25 (`titleFlag`: and whether the title matched). */
  rank(m: string, titleFlag: boolean): Ranked[];
  /**
   * The matches counted unranked up to the window, among every task or (`recent`) among the newest RECENT;
   * `newest`: the index's newest task id.
   */
  count(m: string, recent: boolean): { n: number; newest: number };
}

/**
 * How many of the newest tasks a search first counts matches among: bounded, the count stays cheap when the
 * matches are few (it need not walk them all), and a word in a third of the tasks has its window's worth
 * there long before the bound.
 */
const RECENT = 10_000;

/**
 * Whether `fts` has at least `window` matches, asked only where the answer is likely yes: counted among the
 * newest RECENT tasks, then among all when those few, spread over the whole index, would be twice the
 * window. Otherwise (no, or too few to tell) false: every column's window is ranked, which tells it anyway.
 */
function moreThanWindow(fts: string, q: WindowQueries): boolean {
  const { window } = SEARCH_BOUNDS;
  const { n, newest } = q.count(fts, true);
  if (n >= window) return true;
  return n * Math.max(1, newest / RECENT) >= 2 * window && q.count(fts, false).n >= window;
}

/**
 * The page: title matches first (ranked among themselves), then the other matches (ranked), `limit` in all.
 * Fewer matches than the window: they are all in the window over every column, title matches included.
 * Otherwise older title matches may lie outside it, so the title gets a window of its own, ranked by its
 * own bm25. Which window is ranked first changes only the cost, never the page: bm25 counts the tasks
 * each word matches, reading its whole postings, before its first row, and for a word in a third of
 * 100,000 tasks that was most of a search's time (docs/storage.md). So when the matches are known to be
 * more than the window and the title's window fills the page, every column's window is never ranked.
 * A prefix ranks the title's window before it counts (FTS5 merges the postings of every word a prefix
 * starts, again in each statement, so a count costs as much as a ranking).
 */
function titleFirst(fts: string, prefix: boolean, limit: number, q: WindowQueries): Ranked[] {
  const { window } = SEARCH_BOUNDS;
  const titleWindow = () => q.rank(`{title} : (${fts})`, false);
  let titled: Ranked[] | undefined;
  if (prefix) {
    titled = titleWindow();
    // Title matches are matches: a full title window means more matches than the window.
    if (titled.length >= limit && (titled.length >= window || q.count(fts, false).n >= window))
      return best(titled, limit);
  } else if (moreThanWindow(fts, q)) {
    titled = titleWindow();
    if (titled.length >= limit) return best(titled, limit);
  }
  const all = q.rank(fts, true);
  const inTitle =
    all.length < window
      ? best(
          all.filter((h) => h.t! < 0),
          limit,
        )
      : best(titled ?? titleWindow(), limit);
  const seen = new Set(inTitle.map((h) => h.id));
  return [
    ...inTitle,
    ...best(
      all.filter((h) => !seen.has(h.id) && h.t! >= 0),
      limit,
    ),
  ].slice(0, limit);
}

/**
 * Title matches first (ranked among themselves), then the other matches (ranked), `limit` in all;
 * each ranking over at most SEARCH_BOUNDS.window matches, the newest. Throws `invalid_argument` when the
 * search could not finish within `budgetMs` (nothing is partly answered).
 */
export function boundedSearch(
  db: Db,
  src: SearchSource,
  mirror: MirrorHooks,
  shape: SearchShape,
  fts: string,
  limit: number,
  budgetMs: number = SEARCH_BOUNDS.budgetMs,
): SearchHit[] {
  ensureSearchIndex(db, src.generation, mirror, rebuilds(db, src));
  const budget = budgetCondition(db, 'ralph_mcp_search.rowid');
  // A queued task's indexed text may be text it no longer has: while any wait, they are left out.
  const behind = db.get('SELECT 1 AS x FROM ralph_mcp_search_dirty LIMIT 1') !== undefined;
  const fresh = behind ? NOT_QUEUED('ralph_mcp_search.rowid') : '';
  const filtered = shape.filter.clauses.length > 0;
  // CROSS JOIN keeps the index as the outer loop: driven from the tasks instead, SQLite would run the
  // whole match once per filtered task. The clock's argument ties its check to that loop, before any filter.
  const from = `FROM ralph_mcp_search ${filtered ? `CROSS ${shape.join}` : ''}`;
  const where = `ralph_mcp_search MATCH @m ${budget} ${fresh} ${shape.filter.clauses.map((c) => `AND ${c}`).join(' ')}`;
  // One pass per window: its newest `window` matches (`bound`: among the newest RECENT tasks), ranked
  // (RANKED: with their bm25) or counted; sorted here.
  const windowSql = (outer: string, inner: string, bound: string) =>
    `SELECT ${outer} FROM (SELECT ${inner} ${from} WHERE ${where} ${bound} ORDER BY ralph_mcp_search.rowid DESC LIMIT CAST(@window AS INTEGER))`;
  const params = (m: string) => ({ ...shape.filter.params, m, window: SEARCH_BOUNDS.window, recent: RECENT });
  const queries: WindowQueries = {
    rank(m, titleFlag) {
      const rows = db.all<Ranked>(windowSql('*', titleFlag ? RANKED_TITLE : RANKED, ''), params(m));
      checkClock();
      return rows;
    },
    count(m, recent) {
      const sql = windowSql(`count(*) AS n, ${NEWEST} AS newest`, '1', recent ? IN_RECENT : '');
      const row = db.get<{ n: number; newest: number | null }>(sql, params(m));
      checkClock();
      return { n: row?.n ?? 0, newest: row?.newest ?? 0 };
    },
  };
  const terms = termsOf(fts);
  deadline = performance.now() + budgetMs;
  try {
    const ranked = titleFirst(
      fts,
      terms.some((t) => t.prefix),
      limit,
      queries,
    );
    if (ranked.length === 0) return [];
    const ids = JSON.stringify(ranked.map((h) => h.id));
    // Snippets are cut here from the indexed text, read by rowid: FTS5's snippet() would need the match
    // re-run over every row from the oldest hit on.
    const texts = new Map(
      db.all<{ id: number } & Record<(typeof COLUMNS)[number], string>>(TEXT_SQL, { ids }).map((r) => [r.id, r]),
    );
    const heads = new Map(db.all<Omit<SearchHit, 'score' | 'snippet'>>(shape.headsSql, { ids }).map((r) => [r.id, r]));
    return ranked.flatMap((h) => {
      const head = heads.get(h.id);
      const text = texts.get(h.id);
      return head
        ? [
            {
              ...head,
              score: h.score,
              snippet: text
                ? snippet(
                    COLUMNS.map((c) => text[c] ?? ''),
                    terms,
                  )
                : '',
            },
          ]
        : [];
    });
  } catch (err) {
    if (err instanceof SearchBudgetExceeded) {
      if (behind)
        throw new ToolError(
          'invalid_argument',
          `search_tasks stopped at its time budget (${SEARCH_BOUNDS.budgetMs} ms a call) while the search index catches up with ${queuedCount(db)} changed tasks (they are left out until re-indexed). Retry shortly, or search rarer words; nothing was changed`,
        );
      throw new ToolError(
        'invalid_argument',
        `search_tasks stopped at its time budget (${SEARCH_BOUNDS.budgetMs} ms a call): these words match too many tasks to rank in time. Search fewer, longer or rarer words (words of 4+ letters also match as prefixes; shorter ones only as whole words); nothing was changed`,
      );
    }
    throw err;
  } finally {
    deadline = Infinity;
  }
}

/** How long a create may spend looking for tasks with similar titles (hints only: never worth a slow write). */
export const TITLE_MATCH_BUDGET_MS = 20;

/**
 * Tasks changed since the index last caught up that a create still compares one by one; past this many
 * it catches up a chunk first. Indexing in batches, not per create, keeps the FTS5 index to fewer segments.
 */
export const PENDING_TITLES_MAX = SEARCH_BOUNDS.pendingTitles;

/**
 * Queued tasks whose titles a create reads directly, newest first, while more wait than one chunk
 * re-indexes (another program rewrote many titles): past these, an exact duplicate among older queued
 * tasks is found only once they are re-indexed (docs/storage.md).
 */
export const PENDING_SCAN = 1_000;

const QUEUED_NEWEST = 'SELECT task_id FROM ralph_mcp_search_dirty ORDER BY task_id DESC LIMIT CAST(? AS INTEGER)';
const QUEUED_AMONG = 'SELECT task_id FROM ralph_mcp_search_dirty WHERE task_id IN (SELECT value FROM json_each(?))';

export function titleLookup(db: Db, src: SearchSource, mirror: MirrorHooks): TitleLookup {
  ensureSearchIndex(db, src.generation, mirror, rebuilds(db, src));
  const newest = (n: number) => db.all<{ task_id: number }>(QUEUED_NEWEST, n).map((r) => r.task_id);
  let queued = newest(PENDING_TITLES_MAX + 1);
  if (queued.length > PENDING_TITLES_MAX) {
    catchUpSearchIndex(db, src, mirror, SEARCH_BOUNDS.catchUpRows);
    queued = newest(PENDING_SCAN + 1);
  }
  // Every queued task is among those read: no other lookup is needed to tell a stale index row.
  const whole = queued.length <= PENDING_SCAN;
  const scanned = new Set(queued.slice(0, PENDING_SCAN));
  const keysOf = (ids: readonly number[]): TitleKey[] =>
    ids.length === 0
      ? []
      : db
          .all<{ id: number; title: string | null }>(src.titlesOf, { ids: JSON.stringify(ids) })
          .map((r) => ({ id: r.id, key: titleKey(r.title ?? '') }));
  const pending = keysOf([...scanned]);
  /** Which of `ids` (index rows) are queued, so their indexed title may be one they no longer have. */
  const staleAmong = (ids: readonly number[]): Set<number> =>
    whole || ids.length === 0
      ? new Set(ids.filter((id) => scanned.has(id)))
      : new Set(db.all<{ task_id: number }>(QUEUED_AMONG, JSON.stringify(ids)).map((r) => r.task_id));
  const byId = (a: { id: number }, b: { id: number }) => b.id - a.id;
  return {
    same(key, limit) {
      const indexed = db
        .all<{ id: number }>(
          'SELECT task_id AS id FROM ralph_mcp_title_keys WHERE key = ? ORDER BY task_id DESC LIMIT CAST(? AS INTEGER)',
          key,
          limit + scanned.size,
        )
        .map((r) => r.id);
      const stale = staleAmong(indexed);
      // A queued task past the scan that the index names: its title now, read directly.
      const unread = keysOf(indexed.filter((id) => stale.has(id) && !scanned.has(id)));
      const all = [
        ...pending.filter((p) => p.key === key),
        ...unread.filter((p) => p.key === key),
        ...indexed.filter((id) => !stale.has(id)).map((id) => ({ id })),
      ];
      return all
        .sort(byId)
        .slice(0, limit)
        .map((r) => r.id);
    },
    near(fts, limit) {
      const budget = budgetCondition(db, 'rowid');
      deadline = performance.now() + TITLE_MATCH_BUDGET_MS;
      let ids: number[];
      try {
        ids = db
          .all<{ id: number }>(
            `SELECT rowid AS id FROM ralph_mcp_search WHERE ralph_mcp_search MATCH @m ${budget} ORDER BY rowid DESC LIMIT CAST(@limit AS INTEGER)`,
            {
              m: `{title} : (${fts})`,
              limit: limit + scanned.size,
            },
          )
          .map((r) => r.id);
        checkClock();
      } catch (err) {
        if (!(err instanceof SearchBudgetExceeded)) throw err;
        ids = [];
      } finally {
        deadline = Infinity;
      }
      const stale = staleAmong(ids);
      ids = ids.filter((id) => !stale.has(id)).slice(0, limit);
      const keys =
        ids.length === 0
          ? []
          : db.all<TitleKey>(
              'SELECT task_id AS id, key FROM ralph_mcp_title_keys WHERE task_id IN (SELECT value FROM json_each(?))',
              JSON.stringify(ids),
            );
      return [...pending, ...keys];
    },
  };
}

/** The rows of `ids` (headsSql over the JSON array @ids), in the order of `ids`; ids no task has are left out. */
export function headsInOrder(db: Db, headsSql: string, ids: readonly number[]): TitleMatch[] {
  if (ids.length === 0) return [];
  const heads = new Map(db.all<TitleMatch>(headsSql, { ids: JSON.stringify(ids) }).map((r) => [r.id, r]));
  return ids.flatMap((id) => heads.get(id) ?? []);
}
