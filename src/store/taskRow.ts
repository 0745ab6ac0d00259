import type { Row } from '../db/database.js';
import { numbersOf, parseJsonArrayHead } from './json.js';
import type { Task } from './records.js';
import type { ListedTask } from './store.js';

/**
 * A task read as one row, lists as JSON arrays in text (legacy: its own columns; normalized: built by
 * json_group_array), into a Task. Unreadable values read as empty, never throw. `date` reads the task's
 * dates (the normalized generation's triggers may leave a time in them).
 */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
export const num = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null;

export const TASK_LISTS = ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'] as const;
export type TaskList = (typeof TASK_LISTS)[number];

/**
 * A stored list read at most LIST_READ_MAX items deep (json.ts); `cut` collects the names of lists
 * that held more.
 */
export function listHead(v: unknown, name: string, cut: string[]): unknown[] {
  const { items, more } = parseJsonArrayHead(v);
  if (more) cut.push(name);
  return items;
}
const strings = (items: unknown[]): string[] => items.filter((x): x is string => typeof x === 'string');

export function taskFromRow(r: Row, date: (v: unknown) => string | null = str): Task {
  const cut: string[] = [];
  const task: Task = {
    id: Number(r.id),
    feature: String(r.feature),
    discipline: String(r.discipline),
    title: String(r.title),
    description: str(r.description),
    status: String(r.status),
    priority: str(r.priority),
    tags: strings(listHead(r.tags, 'tags', cut)),
    depends_on: numbersOf(listHead(r.depends_on, 'depends_on', cut)),
    blocked_by: str(r.blocked_by),
    created: date(r.created),
    updated: date(r.updated),
    completed: date(r.completed),
    acceptance_criteria: strings(listHead(r.acceptance_criteria, 'acceptance_criteria', cut)),
    context_files: strings(listHead(r.context_files, 'context_files', cut)),
    output_artifacts: strings(listHead(r.output_artifacts, 'output_artifacts', cut)),
    hints: str(r.hints),
    estimated_turns: num(r.estimated_turns),
    provenance: str(r.provenance),
    pseudocode: str(r.pseudocode),
    enriched_at: str(r.enriched_at),
  };
  if (cut.length > 0) task.truncated_lists = cut;
  return task;
}

/**
 * A list page's row as list_tasks gives it; `withTemplate` on the normalized generation, whose tasks may
 * come from a template (the key goes before `changed`, as its answers have always had it).
 */
export function listedRow(r: Row, withTemplate: boolean): ListedTask {
  const cut: string[] = [];
  const row = {
    id: Number(r.id),
    title: String(r.title),
    status: String(r.status),
    priority: str(r.priority),
    feature: String(r.feature),
    discipline: String(r.discipline),
    depends_on: numbersOf(listHead(r.depends_on, 'depends_on', cut)),
  } as ListedTask;
  if (withTemplate) row.template_id = r.template_id == null ? null : Number(r.template_id);
  row.changed = String(r.changed);
  if (cut.length > 0) row.truncated_lists = cut;
  return row;
}
