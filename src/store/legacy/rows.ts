import type { Row } from '../../db/database.js';
import { normalizeLearning, publicLearning, type Learning } from '../../domain/learnings.js';
import type { Comment, Discipline, Feature } from '../records.js';
import { num, str } from '../taskRow.js';
import { parseJsonArray, stringArray } from '../json.js';
import { overridesView } from '../overrides.js';

/** Legacy rows (JSON-in-TEXT list columns) to domain records; unreadable values read as empty, never throw. */

export function commentFromRow(r: Row): Comment {
  return {
    id: Number(r.id),
    task_id: Number(r.task_id),
    author: String(r.author),
    discipline: str(r.discipline),
    agent_task_id: num(r.agent_task_id),
    priority: str(r.priority),
    body: String(r.body),
    created: str(r.created),
  };
}

/** For display: unreadable items are skipped, fields limited to the documented ones. */
export const learningsFromColumn = (v: unknown): Learning[] =>
  parseJsonArray(v)
    .map(normalizeLearning)
    .filter((l): l is Learning => l !== undefined)
    .map(publicLearning);

export function featureFromRow(r: Row): Feature {
  return {
    name: String(r.name),
    display_name: String(r.display_name),
    acronym: String(r.acronym),
    description: str(r.description),
    created: str(r.created),
    knowledge_paths: stringArray(r.knowledge_paths),
    context_files: stringArray(r.context_files),
    architecture: str(r.architecture),
    boundaries: str(r.boundaries),
    learnings: learningsFromColumn(r.learnings),
    dependencies: stringArray(r.dependencies),
  };
}

export function disciplineFromRow(r: Row): Discipline {
  return {
    name: String(r.name),
    display_name: String(r.display_name),
    acronym: String(r.acronym),
    icon: String(r.icon),
    color: String(r.color),
    description: str(r.description),
    system_prompt: str(r.system_prompt),
    skills: stringArray(r.skills),
    conventions: str(r.conventions),
    mcp_servers: parseJsonArray(r.mcp_servers),
    stack_id: num(r.stack_id),
    mcp_tool_overrides: overridesView(r.mcp_tool_overrides),
  };
}
