/**
 * Ralph's data rules, kept here so that both programs agree on what a valid row is.
 */

export const TASK_STATUSES = ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Exactly four characters, upper-case letters and digits; unique per table. */
export const ACRONYM_RE = /^[A-Z0-9]{4}$/;

/** Feature and discipline keys: lower-case words joined by '-' or '_' (as Ralph's own defaults are). */
export const NAME_RE = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

export const HEX_COLOR_RE = /^#[0-9a-fA-F]{6}$/;

export const MAX_CONTEXT_FILES = 100;

/** Task dates (created, updated, completed) are YYYY-MM-DD; comment and enrichment stamps RFC 3339 UTC. */
export const today = (now = new Date()): string => now.toISOString().slice(0, 10);
export const timestamp = (now = new Date()): string => now.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Derives a 4-character acronym from a display name when the caller gives none:
 * initials first ("Bookmark Sync Engine" → BSE…), then the first word's consonants, then its
 * remaining letters, then digits; a taken acronym gets its last character replaced by 2–9, A–Z.
 */
export function deriveAcronym(displayName: string, taken: ReadonlySet<string>): string {
  const words = displayName
    .toUpperCase()
    .normalize('NFKD')
    .replace(/[^A-Z0-9\s_-]/g, '')
    .split(/[\s_-]+/)
    .filter(Boolean);
  const first = words[0] ?? 'X';
  const pool: string[] = [];
  const push = (s: string) => {
    for (const ch of s) if (pool.length < 16) pool.push(ch);
  };
  push(words.length > 1 ? words.map((w) => w[0]).join('') : (first[0] ?? ''));
  push(first.slice(1).replace(/[AEIOU]/g, ''));
  push(first.slice(1));
  for (const w of words.slice(1)) push(w.slice(1));
  let base = '';
  for (const ch of pool) if (base.length < 4) base += ch;
  base = `${base}XXXX`.slice(0, 4);
  if (!taken.has(base)) return base;
  const suffixes = '23456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const s of suffixes) {
    const candidate = base.slice(0, 3) + s;
    if (!taken.has(candidate)) return candidate;
  }
  for (const a of suffixes)
    for (const b of suffixes) {
      const candidate = base.slice(0, 2) + a + b;
      if (!taken.has(candidate)) return candidate;
    }
  throw new Error('no free acronym');
}
