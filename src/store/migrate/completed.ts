import { today } from '../../domain/rules.js';

/**
 * Done tasks without a completed date: Ralph's head requires one (a CHECK), and the legacy schema did not.
 * Migrate never invents it silently: the person running it chooses where it comes from
 * (`--completed-from`), and the choice is printed and kept in ralph_mcp_audit.
 */

export const COMPLETED_SOURCES = ['updated', 'created', 'now'] as const;
export type CompletedFrom = (typeof COMPLETED_SOURCES)[number];

export const COMPLETED_OPTION = `--completed-from ${COMPLETED_SOURCES.join('|')}`;

/** What each choice writes, for messages. */
export const COMPLETED_MEANING: Record<CompletedFrom, string> = {
  updated: "the task's updated date (the last time it changed)",
  created: "the task's created date",
  now: 'the day of the migration, as Ralph dates a task it marks done',
};

export interface CompletedFill {
  from: CompletedFrom;
  /** Task id → the completed value written. */
  values: Map<number, string>;
}

type Row = Record<string, unknown>;

const blank = (v: unknown): boolean => v === null || v === undefined || v === '';

/** A done task whose completed date is missing (NULL or empty). */
export const lacksCompleted = (row: Row): boolean => row.status === 'done' && blank(row.completed);

/**
 * The completed value of each done task that has none, from the chosen column (or the day); a task whose
 * chosen column is empty too is a problem naming the other choices.
 */
export function fillCompleted(
  rows: readonly Row[],
  from: CompletedFrom,
  problems: string[],
  now = new Date(),
): CompletedFill {
  const values = new Map<number, string>();
  for (const row of rows.filter(lacksCompleted)) {
    const id = Number(row.id);
    const value = from === 'now' ? today(now) : row[from];
    if (blank(value)) {
      const others = COMPLETED_SOURCES.filter((s) => s !== from).join(' or ');
      problems.push(
        `task ${id} is done but has no completed date, nor a ${from} date for --completed-from ${from} ` +
          `to take it from; choose ${others}`,
      );
      continue;
    }
    values.set(id, String(value));
  }
  return { from, values };
}

/** The problem line for a done task without a date when no choice was made. */
export const missingCompletedProblem = (id: number): string =>
  `task ${id} is done but has no completed date, which Ralph's head requires (${COMPLETED_OPTION} fills it)`;

/** The refusal's last line when some done tasks lack a date and no choice was made. */
export function chooseCompletedHint(ids: readonly number[]): string {
  const listed = ids.slice(0, 20).join(', ') + (ids.length > 20 ? ', …' : '');
  const choices = COMPLETED_SOURCES.map((s) => `${s}: ${COMPLETED_MEANING[s]}`).join('; ');
  return (
    `${ids.length} done task(s) have no completed date (tasks ${listed}): run migrate again with ` +
    `${COMPLETED_OPTION} (${choices}), or set their dates in Ralph first`
  );
}
