/**
 * Feature learnings, deduplicated as Ralph does.
 *
 * Two texts are compared as sets of lower-cased words longer than 2 characters (punctuation trimmed).
 * Jaccard similarity above 0.7 means the same lesson: the old one's hit_count goes up — unless exactly
 * one of the two is negated ("don't", "never", "avoid", …), in which case the new one contradicts and
 * replaces the old. At most 50 learnings per feature: past that, the oldest unreviewed `auto` ones with
 * hit_count <= 1 are pruned. Texts are cut to 500 characters.
 */

export const LEARNING_SOURCES = ['auto', 'agent', 'human', 'opus_reviewed'] as const;
export type LearningSource = (typeof LEARNING_SOURCES)[number];

export const MAX_LEARNINGS = 50;
export const MAX_LEARNING_CHARS = 500;
export const DUPLICATE_THRESHOLD = 0.7;

export interface Learning {
  text: string;
  reason?: string | null;
  source: LearningSource;
  task_id?: number | null;
  iteration?: number | null;
  created: string;
  hit_count: number;
  reviewed: boolean;
  review_count: number;
}

export type MergeOutcome = 'added' | 'duplicate' | 'replaced';

/** Older rows hold plain strings; read them as `source: auto, hit_count: 1`. */
export function normalizeLearning(item: unknown): Learning | undefined {
  if (typeof item === 'string') {
    return { text: item, source: 'auto', created: '', hit_count: 1, reviewed: false, review_count: 0 };
  }
  if (item === null || typeof item !== 'object') return undefined;
  const o = item as Record<string, unknown>;
  if (typeof o.text !== 'string') return undefined;
  const source = (LEARNING_SOURCES as readonly unknown[]).includes(o.source) ? (o.source as LearningSource) : 'auto';
  // Keys we do not know (a newer Ralph's) are carried along so that rewriting the list keeps them.
  const out: Learning = {
    ...o,
    text: o.text,
    source,
    created: typeof o.created === 'string' ? o.created : '',
    hit_count: typeof o.hit_count === 'number' ? o.hit_count : 1,
    reviewed: o.reviewed === true,
    review_count: typeof o.review_count === 'number' ? o.review_count : 0,
  };
  if (typeof o.reason !== 'string' && o.reason !== null) delete out.reason;
  if (typeof o.task_id !== 'number' && o.task_id !== null) delete out.task_id;
  if (typeof o.iteration !== 'number' && o.iteration !== null) delete out.iteration;
  return out;
}

/** The documented fields only, for tool output. */
export function publicLearning(l: Learning): Learning {
  const out: Learning = { text: l.text, source: l.source, created: l.created, hit_count: l.hit_count, reviewed: l.reviewed, review_count: l.review_count };
  if (l.reason !== undefined) out.reason = l.reason;
  if (l.task_id !== undefined) out.task_id = l.task_id;
  if (l.iteration !== undefined) out.iteration = l.iteration;
  return out;
}

export function wordSet(text: string): Set<string> {
  const words = new Set<string>();
  for (const raw of text.toLowerCase().split(/\s+/)) {
    const w = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if ([...w].length > 2) words.add(w);
  }
  return words;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0; // nothing to compare (see similarity)
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

const NEGATION_RE =
  /(?<![\w-])no(?![\w-])|\b(?:don'?t|do not|doesn'?t|does not|never|not|no longer|avoid|instead of|rather than|can'?t|cannot|shouldn'?t|should not|mustn'?t|must not|won'?t|isn'?t|aren'?t|without)\b/i;

export const isNegated = (text: string): boolean => NEGATION_RE.test(text.replace(/’/g, "'"));

export function truncateLearning(text: string): string {
  const chars = [...text.trim()];
  return chars.length <= MAX_LEARNING_CHARS ? chars.join('') : chars.slice(0, MAX_LEARNING_CHARS).join('');
}

/**
 * Jaccard over the word sets. Texts made only of short words ("Go", "No") have empty word sets: they
 * are the same lesson only if they are the same text.
 */
function similarity(aText: string, a: ReadonlySet<string>, bText: string, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return aText.trim().toLowerCase() === bText.trim().toLowerCase() ? 1 : 0;
  return jaccard(a, b);
}

export interface MergeResult {
  outcome: MergeOutcome;
  /**
   * The column's new content: the stored items exactly as they were (whatever their shape), except
   * the one matched (hit_count + 1) or replaced, plus the new one, minus the pruned ones.
   */
  items: unknown[];
  /** The learning the outcome is about (the new one, or the existing duplicate). */
  learning: Learning;
  /** For duplicate/replaced: the text that was matched. */
  matched?: string;
  similarity?: number;
  pruned: number;
}

/**
 * Merges `incoming` into the stored items. Only the normalized view is used to compare; what is written
 * back is the stored items themselves, so fields of Ralph's that we do not know (or values of another
 * type) survive any number of appends.
 */
export function mergeLearning(stored: readonly unknown[], incoming: Learning): MergeResult {
  const items = [...stored];
  const newWords = wordSet(incoming.text);
  const newNeg = isNegated(incoming.text);
  let best = -1;
  let bestScore = 0;
  let bestView: Learning | undefined;
  items.forEach((item, i) => {
    const view = normalizeLearning(item);
    if (!view) return;
    const score = similarity(view.text, wordSet(view.text), incoming.text, newWords);
    if (score > DUPLICATE_THRESHOLD && score > bestScore) {
      best = i;
      bestScore = score;
      bestView = view;
    }
  });
  if (bestView) {
    if (isNegated(bestView.text) !== newNeg) {
      // A contradiction: the new lesson supersedes the old one where it stood.
      items[best] = incoming;
      return { outcome: 'replaced', items, learning: incoming, matched: bestView.text, similarity: bestScore, pruned: 0 };
    }
    const old = items[best];
    const bumped = typeof old === 'object' && old !== null ? { ...(old as object), hit_count: bestView.hit_count + 1 } : { ...bestView, hit_count: bestView.hit_count + 1 };
    items[best] = bumped;
    return { outcome: 'duplicate', items, learning: { ...bestView, hit_count: bestView.hit_count + 1 }, matched: bestView.text, similarity: bestScore, pruned: 0 };
  }
  items.push(incoming);
  const pruned = prune(items);
  return { outcome: 'added', items, learning: incoming, pruned };
}

/**
 * Strictly what Ralph may prune: an unreviewed `auto` learning with hit_count <= 1 (a legacy plain
 * string counts as one). Judged on the stored value, not the normalized view: an item whose source we
 * do not recognise is never pruned.
 */
function isPrunable(item: unknown): boolean {
  if (typeof item === 'string') return true;
  if (item === null || typeof item !== 'object') return false;
  const o = item as Record<string, unknown>;
  return o.source === 'auto' && o.reviewed !== true && (o.hit_count === undefined || (typeof o.hit_count === 'number' && o.hit_count <= 1));
}

/** Drops the oldest prunable items (never the one just added, the last) until at most MAX remain. */
function prune(items: unknown[]): number {
  let removed = 0;
  while (items.length > MAX_LEARNINGS) {
    const idx = items.slice(0, -1).findIndex(isPrunable);
    if (idx < 0) break;
    items.splice(idx, 1);
    removed++;
  }
  return removed;
}
