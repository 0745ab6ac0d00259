import type { Db } from '../../db/database.js';
import { likePrefix } from '../like.js';
import type { NameStore } from '../store.js';

/** Acronyms and name completion over `subsystems` (features, to agents) and `disciplines`. */

const ACRONYM_OWNER = {
  features: 'SELECT name FROM subsystems WHERE acronym = ?',
  disciplines: 'SELECT name FROM disciplines WHERE acronym = ?',
} as const;
const ACRONYMS = {
  features: 'SELECT acronym FROM subsystems',
  disciplines: 'SELECT acronym FROM disciplines',
} as const;
// LIKE is case-insensitive for ASCII, as the NOCASE names compare.
const COMPLETE = {
  features: "SELECT name FROM subsystems WHERE name LIKE ? ESCAPE '\\' ORDER BY name LIMIT CAST(? AS INTEGER)",
  disciplines: "SELECT name FROM disciplines WHERE name LIKE ? ESCAPE '\\' ORDER BY name LIMIT CAST(? AS INTEGER)",
} as const;

export function normalizedNames(db: Db): NameStore {
  return {
    acronymOwner: (kind, acronym) => db.get<{ name: string }>(ACRONYM_OWNER[kind], acronym)?.name,
    acronyms: (kind) => db.all<{ acronym: string }>(ACRONYMS[kind]).map((r) => r.acronym),
    completeNames: (kind, prefix, limit) =>
      db.all<{ name: string }>(COMPLETE[kind], likePrefix(prefix), limit).map((r) => r.name),
  };
}
