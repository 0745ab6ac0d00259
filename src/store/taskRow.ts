import type { Row } from '../db/database.js';
import { numberArray, stringArray } from './json.js';
import type { Task } from './records.js';

/**
 * A task read as one row, lists as JSON arrays in text (legacy: its own columns; normalized: built by
 * json_group_array), into a Task. Unreadable values read as empty, never throw. `date` reads the task's
 * dates (the normalized generation's triggers may leave a time in them).
 */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
export const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null);

export function taskFromRow(r: Row, date: (v: unknown) => string | null = str): Task {
  return {
    id: Number(r.id),
    feature: String(r.feature),
    discipline: String(r.discipline),
    title: String(r.title),
    description: str(r.description),
    status: String(r.status),
    priority: str(r.priority),
    tags: stringArray(r.tags),
    depends_on: numberArray(r.depends_on),
    blocked_by: str(r.blocked_by),
    created: date(r.created),
    updated: date(r.updated),
    completed: date(r.completed),
    acceptance_criteria: stringArray(r.acceptance_criteria),
    context_files: stringArray(r.context_files),
    output_artifacts: stringArray(r.output_artifacts),
    hints: str(r.hints),
    estimated_turns: num(r.estimated_turns),
    provenance: str(r.provenance),
    pseudocode: str(r.pseudocode),
    enriched_at: str(r.enriched_at),
  };
}
