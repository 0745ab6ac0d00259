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
  /** indexRows restricted to one task id (bound). */
  indexRow: string;
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

/** Brings the index up to date with every write since the last search (ours, Ralph's, anyone's). */
export function syncSearchIndex(db: Db, src: SearchSource, mirror: MirrorHooks): void {
  ensureSearchIndex(db, src.generation, mirror, rebuilds(db, src));
  if (!db.get('SELECT 1 AS x FROM ralph_mcp_search_dirty LIMIT 1')) return;
  db.write(() => {
    const queued = db.all<{ task_id: number }>('SELECT task_id FROM ralph_mcp_search_dirty').map((r) => r.task_id);
    for (const id of queued) {
      db.run('DELETE FROM ralph_mcp_search WHERE rowid = ?', id);
      db.run(`${INSERT_SQL} ${src.indexRow}`, id);
    }
    // The queued tasks' title keys, their titles read in one statement (a deleted task has none).
    db.run('DELETE FROM ralph_mcp_title_keys WHERE task_id IN (SELECT task_id FROM ralph_mcp_search_dirty)');
    for (const r of db.all<{ id: number; title: string | null }>(src.titlesOf, { ids: JSON.stringify(queued) }))
      db.run(INSERT_KEY, r.id, titleKey(r.title ?? ''));
    db.run('DELETE FROM ralph_mcp_search_dirty');
  });
}

/** bm25 column weights: a title hit outranks a description hit, which outranks a comment hit. */
export const BM25 = 'bm25(ralph_mcp_search, 10.0, 4.0, 2.0, 2.0, 1.0)';
/** Negative exactly when the title holds a match (every other column weighs nothing). */
const TITLE_BM25 = 'bm25(ralph_mcp_search, 1.0, 0.0, 0.0, 0.0, 0.0)';
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
  syncSearchIndex(db, src, mirror);
  const budget = budgetCondition(db, 'ralph_mcp_search.rowid');
  const filtered = shape.filter.clauses.length > 0;
  // CROSS JOIN keeps the index as the outer loop: driven from the tasks instead, SQLite would run the
  // whole match once per filtered task. The clock's argument ties its check to that loop, before any filter.
  const from = `FROM ralph_mcp_search ${filtered ? `CROSS ${shape.join}` : ''}`;
  const where = `ralph_mcp_search MATCH @m ${budget} ${shape.filter.clauses.map((c) => `AND ${c}`).join(' ')}`;
  // One pass per ranking: the newest `window` matches with their bm25 (and whether the title matched:
  // a bm25 weighing only the title is negative exactly then); sorted here.
  const windowSql = `SELECT ralph_mcp_search.rowid AS id, ${BM25} AS score, ${TITLE_BM25} AS t ${from} WHERE ${where} ORDER BY ralph_mcp_search.rowid DESC LIMIT CAST(@window AS INTEGER)`;
  const windowOf = (m: string) => {
    const rows = db.all<{ id: number; score: number; t: number }>(windowSql, {
      ...shape.filter.params,
      m,
      window: SEARCH_BOUNDS.window,
    });
    checkClock();
    return rows;
  };
  const best = (rows: { id: number; score: number }[], n: number) =>
    [...rows].sort((a, b) => a.score - b.score || b.id - a.id).slice(0, n);
  deadline = performance.now() + budgetMs;
  try {
    const all = windowOf(fts);
    // Fewer matches than the window: they are all here, title matches included. Otherwise older title
    // matches may lie outside it, so the title gets a window of its own (ranked by its own bm25).
    const inTitle =
      all.length < SEARCH_BOUNDS.window
        ? best(
            all.filter((h) => h.t < 0),
            limit,
          )
        : best(windowOf(`{title} : (${fts})`), limit);
    const seen = new Set(inTitle.map((h) => h.id));
    const ranked = [
      ...inTitle,
      ...best(
        all.filter((h) => !seen.has(h.id) && h.t >= 0),
        limit,
      ),
    ].slice(0, limit);
    if (ranked.length === 0) return [];
    const ids = JSON.stringify(ranked.map((h) => h.id));
    // Snippets are cut here from the indexed text, read by rowid: FTS5's snippet() would need the match
    // re-run over every row from the oldest hit on.
    const texts = new Map(
      db.all<{ id: number } & Record<(typeof COLUMNS)[number], string>>(TEXT_SQL, { ids }).map((r) => [r.id, r]),
    );
    const heads = new Map(db.all<Omit<SearchHit, 'score' | 'snippet'>>(shape.headsSql, { ids }).map((r) => [r.id, r]));
    const terms = termsOf(fts);
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
 * it catches up first. Indexing in batches, not per create, keeps the FTS5 index to fewer segments to merge.
 */
export const PENDING_TITLES_MAX = 32;

export function titleLookup(db: Db, src: SearchSource, mirror: MirrorHooks): TitleLookup {
  ensureSearchIndex(db, src.generation, mirror, rebuilds(db, src));
  let queued = db
    .all<{ task_id: number }>(
      'SELECT task_id FROM ralph_mcp_search_dirty LIMIT CAST(? AS INTEGER)',
      PENDING_TITLES_MAX + 1,
    )
    .map((r) => r.task_id);
  if (queued.length > PENDING_TITLES_MAX) {
    syncSearchIndex(db, src, mirror);
    queued = [];
  }
  const stale = new Set(queued);
  const pending: TitleKey[] =
    queued.length === 0
      ? []
      : db
          .all<{ id: number; title: string | null }>(src.titlesOf, { ids: JSON.stringify(queued) })
          .map((r) => ({ id: r.id, key: titleKey(r.title ?? '') }));
  const byId = (a: { id: number }, b: { id: number }) => b.id - a.id;
  return {
    same(key, limit) {
      const indexed = db.all<{ id: number }>(
        'SELECT task_id AS id FROM ralph_mcp_title_keys WHERE key = ? ORDER BY task_id DESC LIMIT CAST(? AS INTEGER)',
        key,
        limit + stale.size,
      );
      const all = [...pending.filter((p) => p.key === key), ...indexed.filter((r) => !stale.has(r.id))];
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
              limit: limit + stale.size,
            },
          )
          .map((r) => r.id)
          .filter((id) => !stale.has(id))
          .slice(0, limit);
        checkClock();
      } catch (err) {
        if (!(err instanceof SearchBudgetExceeded)) throw err;
        ids = [];
      } finally {
        deadline = Infinity;
      }
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
