import { z } from 'zod';
import { wordSet } from '../domain/learnings.js';
import {
  MAX_DUPLICATE_HINTS,
  TITLE_HINT_THRESHOLD,
  similarNames,
  titleKey,
  titleSimilarity,
} from '../domain/similarity.js';
import { conflict } from '../domain/errors.js';
import { once } from '../toolkit/tool.js';
import type { ToolContext } from '../toolkit/context.js';
import type { Named, RalphStore } from '../store/store.js';

/**
 * possible_duplicates on creates, and the one duplicate refused: a title its feature already has (case and
 * spacing aside) unless `duplicate_ok`. Both come from bounded index lookups: a create never reads every task.
 */

export const TaskHintOut = once(() =>
  z.object({
    id: z.number().int(),
    title: z.string(),
    feature: z.string(),
    status: z.string(),
    similarity: z.number(),
  }),
);
export const NameHintOut = once(() =>
  z.object({ name: z.string(), why: z.enum(['same_spelling', 'contains', 'typo']) }),
);

export const duplicateOk = once(() => z.boolean().optional().describe('Allow a duplicate title'));

/** Candidates compared per create: a title's near-duplicates are among the newest tasks sharing its words. */
const CANDIDATES = 100;
/** Tasks with exactly this title looked at for one in the same feature (a bound for a pathological plan). */
const EXACT_CANDIDATES = 500;
/**
 * Words of a title that make up the candidate query: its longest three up to four words, since pairs with
 * its shortest, commonest word fill the candidate window with tasks that share little else. A longer
 * title keeps four: a similar one may share only one of its three longest words.
 */
const queryWords = (words: number): number => (words <= 4 ? 3 : 4);

const quote = (w: string) => `"${w.replace(/"/g, '')}"`;

/** Every way to choose `k` of `items`, in order. */
function choose<T>(items: readonly T[], k: number): T[][] {
  if (k === 0) return [[]];
  return items.flatMap((x, i) => choose(items.slice(i + 1), k - 1).map((rest) => [x, ...rest]));
}

/**
 * The FTS5 query for a title's near-duplicates: a title is TITLE_HINT_THRESHOLD similar to another only
 * if they share half its words, so it asks for tasks sharing that many of its longest (rarest, as a
 * rule) words, at most 2 at a time (more would only narrow what is compared).
 */
function nearQuery(title: string): string | undefined {
  const all = wordSet(title);
  const words = [...all].sort((a, b) => b.length - a.length).slice(0, queryWords(all.size));
  if (words.length === 0) return undefined;
  const k = Math.min(Math.ceil(all.size / 2), 2, words.length);
  return choose(words, k)
    .map((set) => `(${set.map(quote).join(' ')})`)
    .join(' OR ');
}

export interface TitleCheck {
  feature: string;
  /** Tasks that are not duplicates whatever their titles (a split's parent and siblings). */
  exclude?: readonly number[];
  duplicateOk?: boolean | undefined;
}

/**
 * Refuses an exact duplicate title in the same feature (unless duplicateOk), and returns up to
 * MAX_DUPLICATE_HINTS existing tasks with similar titles, most similar first. Call before inserting.
 */
export function checkTitle(
  ctx: Pick<ToolContext, 'store'>,
  title: string,
  check: TitleCheck,
): z.infer<ReturnType<typeof TaskHintOut>>[] {
  const { store } = ctx;
  const skip = new Set(check.exclude ?? []);
  const key = titleKey(title);
  const titles = store.search.titleLookup();
  if (!check.duplicateOk) {
    const same = store.search
      .titleHeads(titles.same(key, EXACT_CANDIDATES))
      .filter((t) => !skip.has(t.id) && t.feature === check.feature);
    if (same.length > 0) {
      throw conflict(
        `${store.featureNoun} ${check.feature} already has a task titled ${JSON.stringify(same[0]!.title)}: ${same.map((t) => `#${t.id} (${t.status})`).join(', ')}. Use that task, or pass duplicate_ok: true if another one is intended; nothing was created`,
        { duplicates: same.map((t) => t.id) },
      );
    }
  }
  const q = nearQuery(title);
  if (q === undefined) return [];
  // Compared by title key first; only the few that are close enough are read whole.
  const close = titles
    .near(q, CANDIDATES)
    .filter((t) => !skip.has(t.id))
    .map((t) => ({ id: t.id, similarity: t.key === key ? 1 : Math.round(titleSimilarity(key, t.key) * 100) / 100 }))
    .filter((t) => t.similarity >= TITLE_HINT_THRESHOLD)
    .sort((a, b) => b.similarity - a.similarity || b.id - a.id)
    .slice(0, MAX_DUPLICATE_HINTS);
  const similarity = new Map(close.map((t) => [t.id, t.similarity]));
  return store.search.titleHeads(close.map((t) => t.id)).map((t) => ({
    id: t.id,
    title: t.title,
    feature: t.feature,
    status: t.status,
    similarity: similarity.get(t.id)!,
  }));
}

/** Existing features or disciplines whose names look like a new one's (separators, prefixes, typos). */
export function similarNamesOf(
  store: RalphStore,
  kind: Named,
  name: string,
): z.infer<ReturnType<typeof NameHintOut>>[] {
  // Features and disciplines are a handful per project; the cap only keeps a pathological one bounded.
  const existing =
    kind === 'features' ? store.features.featureNames(10_000) : store.disciplines.disciplineNames(10_000);
  return similarNames(name, existing);
}
