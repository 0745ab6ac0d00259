import type { Db } from '../db/database.js';
import { requireDisciplineRow, requireFeatureRow } from './rows.js';

/**
 * The optional status/feature/discipline filters of list_tasks and search_tasks. Each selects a fixed
 * SQL fragment (the keys are ours, never the caller's); the values are always bound parameters. An
 * unknown feature or discipline is not_found (naming the existing ones), not an empty result.
 */
const COLUMNS = ['status', 'feature', 'discipline'] as const;
export type TaskFilterValues = Partial<Record<(typeof COLUMNS)[number], string | undefined>>;

export interface TaskFilters {
  /** Bound parameters: only the filters given. */
  params: Record<string, string>;
  /** The WHERE fragments, with the tasks table under `alias` ('' for none). */
  clauses: (alias?: string) => string[];
}

export function taskFilters(db: Db, given: TaskFilterValues): TaskFilters {
  if (given.feature !== undefined) requireFeatureRow(db, given.feature);
  if (given.discipline !== undefined) requireDisciplineRow(db, given.discipline);
  const keys = COLUMNS.filter((k) => given[k] !== undefined);
  return {
    params: Object.fromEntries(keys.map((k) => [k, given[k]!])),
    clauses: (alias = '') => keys.map((k) => `${alias ? `${alias}.` : ''}${k} = @${k}`),
  };
}
