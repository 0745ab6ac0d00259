import type { z } from 'zod';
import type { Db, Row } from '../db/database.js';
import { numberArray, parseJsonArray, parseJsonObject, stringArray } from '../db/json.js';
import { normalizeLearning, publicLearning, type Learning } from '../domain/learnings.js';
import { notFound } from '../errors.js';
import type { CommentOut, DisciplineOut, FeatureOut, TaskOut } from './shapes.js';

/** Row readers: Ralph's rows (JSON-in-TEXT columns) to the shapes our tools return. */

const s = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
const n = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null);

export function taskFromRow(r: Row): z.infer<typeof TaskOut> {
  return {
    id: Number(r.id),
    feature: String(r.feature),
    discipline: String(r.discipline),
    title: String(r.title),
    description: s(r.description),
    status: String(r.status),
    priority: s(r.priority),
    tags: stringArray(r.tags),
    depends_on: numberArray(r.depends_on),
    blocked_by: s(r.blocked_by),
    created: s(r.created),
    updated: s(r.updated),
    completed: s(r.completed),
    acceptance_criteria: stringArray(r.acceptance_criteria),
    context_files: stringArray(r.context_files),
    output_artifacts: stringArray(r.output_artifacts),
    hints: s(r.hints),
    estimated_turns: n(r.estimated_turns),
    provenance: s(r.provenance),
    pseudocode: s(r.pseudocode),
    enriched_at: s(r.enriched_at),
  };
}

export function commentFromRow(r: Row): z.infer<typeof CommentOut> {
  return {
    id: Number(r.id),
    task_id: Number(r.task_id),
    author: String(r.author),
    discipline: s(r.discipline),
    agent_task_id: n(r.agent_task_id),
    priority: s(r.priority),
    body: String(r.body),
    created: s(r.created),
  };
}

/** For display: unreadable items are skipped, fields limited to the documented ones. */
export const learningsFromColumn = (v: unknown): Learning[] =>
  parseJsonArray(v)
    .map(normalizeLearning)
    .filter((l): l is Learning => l !== undefined)
    .map(publicLearning);

export function featureFromRow(r: Row): z.infer<typeof FeatureOut> {
  return {
    name: String(r.name),
    display_name: String(r.display_name),
    acronym: String(r.acronym),
    description: s(r.description),
    created: s(r.created),
    knowledge_paths: stringArray(r.knowledge_paths),
    context_files: stringArray(r.context_files),
    architecture: s(r.architecture),
    boundaries: s(r.boundaries),
    learnings: learningsFromColumn(r.learnings),
    dependencies: stringArray(r.dependencies),
  };
}

export function disciplineFromRow(r: Row): z.infer<typeof DisciplineOut> {
  const overrides = parseJsonObject(r.mcp_tool_overrides);
  return {
    name: String(r.name),
    display_name: String(r.display_name),
    acronym: String(r.acronym),
    icon: String(r.icon),
    color: String(r.color),
    description: s(r.description),
    system_prompt: s(r.system_prompt),
    skills: stringArray(r.skills),
    conventions: s(r.conventions),
    mcp_servers: parseJsonArray(r.mcp_servers),
    stack_id: n(r.stack_id),
    mcp_tool_overrides: overrides
      ? { additional_disabled: Array.isArray(overrides.additional_disabled) ? overrides.additional_disabled.filter((x): x is string => typeof x === 'string') : [] }
      : null,
  };
}

/** Lists a few existing names in a not_found message, so the agent can correct itself. */
const KNOWN_SQL = {
  features: 'SELECT name FROM features ORDER BY name LIMIT 21',
  disciplines: 'SELECT name FROM disciplines ORDER BY name LIMIT 21',
} as const;

function known(db: Db, table: keyof typeof KNOWN_SQL): string {
  const names = db.all<{ name: string }>(KNOWN_SQL[table]).map((r) => r.name);
  if (names.length === 0) return `there are no ${table} yet`;
  return `existing ${table}: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`;
}

export function requireTaskRow(db: Db, id: number): Row {
  const row = db.get('SELECT * FROM tasks WHERE id = ?', id);
  if (!row) {
    const r = db.get<{ lo: number | null; hi: number | null; n: number }>('SELECT min(id) AS lo, max(id) AS hi, count(*) AS n FROM tasks')!;
    throw notFound('task', id, r.n === 0 ? 'there are no tasks yet' : `task ids in this project run from ${r.lo} to ${r.hi} (${r.n} tasks)`);
  }
  return row;
}

export function requireFeatureRow(db: Db, name: string): Row {
  const row = db.get('SELECT * FROM features WHERE name = ?', name);
  if (!row) throw notFound('feature', name, known(db, 'features'));
  return row;
}

export function requireDisciplineRow(db: Db, name: string): Row {
  const row = db.get('SELECT * FROM disciplines WHERE name = ?', name);
  if (!row) throw notFound('discipline', name, known(db, 'disciplines'));
  return row;
}
