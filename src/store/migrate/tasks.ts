import type { Db } from '../../db/database.js';

/**
 * The task rows, copied inside SQLite from the attached snapshot (`legacy`): most of a large project's
 * rows, so one statement per table instead of a statement per row (a quarter of the time: 1.5 s instead of
 * 6 s at 100,000 tasks). plan.ts has already checked every value these statements read (each list a JSON
 * array of items of its kind, every feature, discipline and dependency there, every status readable, every
 * done task dated or filled): a value it refused never reaches them. Ids are kept; list rows are made in
 * the order the lists hold them, as Ralph reads them back. The new file is checked whole afterwards.
 */

/** The `--completed-from` values, where the task statements can join them. */
export function stageFilled(db: Db, filled: ReadonlyMap<number, string>): void {
  db.raw.exec('CREATE TEMP TABLE IF NOT EXISTS migrate_filled (id INTEGER PRIMARY KEY, completed TEXT NOT NULL)');
  db.run('DELETE FROM temp.migrate_filled');
  for (const [id, completed] of filled)
    db.run('INSERT INTO temp.migrate_filled (id, completed) VALUES (?, ?)', id, completed);
}

/** One statement per table; a NULL or '' list holds no items (as plan.ts reads it). */
const STATEMENTS = {
  details: `INSERT INTO main.task_details
     (id, discipline_id, title, description, priority, hints, estimated_turns, pseudocode, created, updated)
   SELECT t.id, d.id, t.title, t.description, t.priority, t.hints, t.estimated_turns, t.pseudocode, t.created, t.updated
   FROM legacy.tasks t JOIN main.disciplines d ON d.name = t.discipline COLLATE BINARY ORDER BY t.id`,
  runtime: `INSERT INTO main.runtime_tasks
     (id, subsystem_id, details_id, status, provenance, enriched_at, created, updated, completed)
   SELECT t.id, s.id, t.id, t.status, t.provenance, t.enriched_at, t.created, t.updated,
     coalesce(f.completed, t.completed)
   FROM legacy.tasks t JOIN main.subsystems s ON s.name = t.feature COLLATE BINARY
   LEFT JOIN temp.migrate_filled f ON f.id = t.id ORDER BY t.id`,
  tags: `INSERT INTO main.task_tags (task_id, tag)
   SELECT t.id, j.value FROM legacy.tasks t, json_each(coalesce(nullif(t.tags, ''), '[]')) j
   ORDER BY t.id, j.key`,
  criteria: `INSERT INTO main.task_acceptance_criteria (task_id, criterion, criterion_order)
   SELECT t.id, j.value, j.key FROM legacy.tasks t, json_each(coalesce(nullif(t.acceptance_criteria, ''), '[]')) j
   ORDER BY t.id, j.key`,
  contextFiles: `INSERT INTO main.task_context_files (task_id, file_path)
   SELECT t.id, j.value FROM legacy.tasks t, json_each(coalesce(nullif(t.context_files, ''), '[]')) j
   ORDER BY t.id, j.key`,
  artifacts: `INSERT INTO main.task_output_artifacts (task_id, artifact_path)
   SELECT t.id, j.value FROM legacy.tasks t, json_each(coalesce(nullif(t.output_artifacts, ''), '[]')) j
   ORDER BY t.id, j.key`,
  // An id may be a number or a string of digits, and be listed twice: one row each, in first-listed order.
  dependencies: `INSERT INTO main.task_dependencies (task_id, depends_on_task_id)
   SELECT task_id, dep FROM (
     SELECT t.id AS task_id, CAST(j.value AS INTEGER) AS dep, min(j.key) AS first
     FROM legacy.tasks t, json_each(coalesce(nullif(t.depends_on, ''), '[]')) j
     GROUP BY t.id, CAST(j.value AS INTEGER))
   ORDER BY task_id, first`,
};

/** Every task with its lists (disciplines and subsystems written first: tasks join them by name). */
export function writeTasks(db: Db): void {
  db.run(STATEMENTS.details);
  db.run(STATEMENTS.runtime);
  db.run(STATEMENTS.tags);
  db.run(STATEMENTS.criteria);
  db.run(STATEMENTS.contextFiles);
  db.run(STATEMENTS.artifacts);
  db.run(STATEMENTS.dependencies);
}
