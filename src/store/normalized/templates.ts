import type { Db, Row } from '../../db/database.js';
import { today } from '../../domain/rules.js';
import { str } from '../taskRow.js';
import type { Template } from '../records.js';
import type { TemplateStore } from '../store.js';
import { subsystemId } from './sql.js';

/**
 * Task templates on Ralph's head: a `task_templates` row over a `task_details` row. A task pulled from
 * one is a `runtime_tasks` row on the very same details row (Ralph's pull model); the task store copies
 * those details on the task's first change (ownDetails in tasks.ts), so the template never changes.
 */

/** Ralph's template query (get_active_task_templates_for_discipline), every template, with its pulled count. */
const TEMPLATE_SQL = `SELECT tt.id, td.title, td.description, di.name AS discipline, td.priority, td.hints,
  td.estimated_turns, td.pseudocode, tt.is_active,
  (SELECT count(*) FROM runtime_tasks rt WHERE rt.template_id = tt.id) AS pulled
  FROM task_templates tt JOIN task_details td ON td.id = tt.details_id JOIN disciplines di ON di.id = td.discipline_id`;
const LIST_SQL = `${TEMPLATE_SQL} ORDER BY tt.is_active DESC, tt.id`;
const GET_SQL = `${TEMPLATE_SQL} WHERE tt.id = ?`;

const templateOf = (r: Row): Template => ({
  id: Number(r.id),
  title: String(r.title),
  description: str(r.description),
  discipline: String(r.discipline),
  priority: str(r.priority),
  hints: str(r.hints),
  estimated_turns: r.estimated_turns == null ? null : Number(r.estimated_turns),
  pseudocode: str(r.pseudocode),
  active: Number(r.is_active) === 1,
  pulled: Number(r.pulled),
});

export function normalizedTemplates(db: Db): TemplateStore {
  return {
    available: true,
    listTemplates: () => db.all(LIST_SQL).map(templateOf),
    getTemplate(id) {
      const r = db.get(GET_SQL, id);
      return r ? templateOf(r) : undefined;
    },
    createFromTemplate(templateId, feature) {
      const t = db.get<{ d: number }>('SELECT details_id AS d FROM task_templates WHERE id = ?', templateId);
      if (!t) throw new Error(`createFromTemplate: no template ${templateId} (callers check first)`);
      // As Ralph pulls one (its fixture 05): the template's details row, pending, no list rows of its own.
      return Number(
        db.run(
          `INSERT INTO runtime_tasks (subsystem_id, details_id, template_id, status, provenance, created)
           VALUES (?, ?, ?, 'pending', 'agent', ?)`,
          subsystemId(db, feature),
          t.d,
          templateId,
          today(),
        ).lastInsertRowid,
      );
    },
  };
}
