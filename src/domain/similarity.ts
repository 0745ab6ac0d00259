import { jaccard, wordSet } from './learnings.js';

/**
 * Near-duplicate hints for creates (scenario 8: an agent adds `auth` beside `authentication`); the caller
 * decides. Names are short identifiers, compared by spelling; titles are phrases, compared by word sets.
 */

/** At most this many hints per create: enough to notice, too few to flood a prompt. */
export const MAX_DUPLICATE_HINTS = 5;

/** Title word-set similarity from which a task is offered as a possible duplicate (learnings merge above 0.7). */
export const TITLE_HINT_THRESHOLD = 0.5;

/** A name without case or separators: `Front-End`, `front_end` and `frontend` are one name. */
export const nameKey = (name: string): string => name.toLowerCase().replace(/[\s_\-.]+/g, '');

/** Levenshtein distance, giving up (returning max + 1) once it must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Why two names look like one, or undefined: the same once separators and case are dropped
 * (`front-end`/`frontend`), one a prefix or part of the other (`auth`/`authentication`; from 3
 * letters, so `ui` does not match every name holding those letters), or a small typo (one edit up
 * to 6 letters, two beyond).
 */
export function nameLikeness(a: string, b: string): 'same_spelling' | 'contains' | 'typo' | undefined {
  const x = nameKey(a);
  const y = nameKey(b);
  if (x === '' || y === '') return undefined;
  if (x === y) return 'same_spelling';
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.length >= 3 && long.includes(short)) return 'contains';
  const max = short.length <= 6 ? 1 : 2;
  return editDistance(x, y, max) <= max ? 'typo' : undefined;
}

export interface NameHint {
  name: string;
  why: 'same_spelling' | 'contains' | 'typo';
}

/** The existing names that look like `name` (itself excluded), closest kinds first, at most MAX_DUPLICATE_HINTS. */
export function similarNames(name: string, existing: readonly string[]): NameHint[] {
  const rank = { same_spelling: 0, typo: 1, contains: 2 } as const;
  const hits: NameHint[] = [];
  for (const other of existing) {
    if (other.toLowerCase() === name.toLowerCase()) continue;
    const why = nameLikeness(name, other);
    if (why) hits.push({ name: other, why });
  }
  return hits.sort((p, q) => rank[p.why] - rank[q.why] || p.name.localeCompare(q.name)).slice(0, MAX_DUPLICATE_HINTS);
}

/** A title as an exact duplicate compares: case-folded, runs of white space as one, trimmed. */
export const titleKey = (title: string): string => title.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();

/** Word-set Jaccard similarity of two titles (words of 3+ letters, as learnings compare). */
export function titleSimilarity(a: string, b: string): number {
  return jaccard(wordSet(a), wordSet(b));
}
