-- ralph-mcp's own objects on the normalized generation (Ralph's head), with ralph-mcp.sql, on first write.
--
-- Ralph's head has no column for these; they live beside Ralph's rows, keyed by Ralph's ids (or a
-- discipline's name). No foreign keys into Ralph's tables: nothing of ours may ever make a write of
-- Ralph's fail. A row whose Ralph row is gone is ignored (Ralph's ids are AUTOINCREMENT, never reused),
-- and removed when ralph-mcp deletes that row itself.

-- SPEC-070's per-discipline overrides: {"additional_disabled": ["tool", ...]}, as the legacy column.
CREATE TABLE IF NOT EXISTS ralph_mcp_discipline_overrides (
  discipline TEXT PRIMARY KEY COLLATE NOCASE,
  mcp_tool_overrides TEXT
) STRICT;

-- Overrides die with their discipline, whoever deletes it (Ralph's app, plain SQL): a discipline created
-- again under the same name starts without the old disabled tools. Those left from before this trigger
-- existed (or while a rebuild of Ralph's table had dropped it) are removed whenever it is made.
CREATE TRIGGER IF NOT EXISTS ralph_mcp_overrides_discipline_ad AFTER DELETE ON disciplines BEGIN
  DELETE FROM ralph_mcp_discipline_overrides WHERE discipline = OLD.name;
END;
DELETE FROM ralph_mcp_discipline_overrides WHERE discipline NOT IN (SELECT name FROM disciplines);

-- Who wrote a comment (a task_signals row): the name it was signed with, as which discipline, from which
-- task, how urgent. Ralph shows the session's started_by (agent/human) as the author.
CREATE TABLE IF NOT EXISTS ralph_mcp_comment_meta (
  signal_id INTEGER PRIMARY KEY,
  author TEXT NOT NULL,
  discipline TEXT,
  agent_task_id INTEGER,
  priority TEXT
) STRICT;

-- What a learning (a subsystem_comments row of category 'learning') has beyond body and reason: where it
-- came from, how often it was seen again, its review; `extra` keeps any other field (JSON) of a legacy
-- learning that migrate brought over.
CREATE TABLE IF NOT EXISTS ralph_mcp_learning_meta (
  comment_id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  hit_count INTEGER NOT NULL DEFAULT 1,
  reviewed INTEGER NOT NULL DEFAULT 0,
  review_count INTEGER NOT NULL DEFAULT 0,
  extra TEXT
) STRICT;

-- (get_project_progress and claim_next_task read ralph_mcp_task_facets, below: no index of ours on runtime_tasks.)

-- Ralph's head indexes some list tables by task and not others: reading one task's criteria, context files
-- or artifacts would scan every task's. These make each list a search (made on first write, like all of
-- ours; Ralph's code never sees them, and dropping them only makes reads slower).
CREATE INDEX IF NOT EXISTS ralph_mcp_criteria_task ON task_acceptance_criteria(task_id, criterion_order);
CREATE INDEX IF NOT EXISTS ralph_mcp_context_files_task ON task_context_files(task_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_artifacts_task ON task_output_artifacts(task_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_knowledge_paths_subsystem ON subsystem_knowledge_paths(subsystem_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_subsystem_files_subsystem ON subsystem_context_files(subsystem_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_skills_discipline ON discipline_skills(discipline_id);
-- A task's dependents (get_task) in task order from the index alone: Ralph's index by dependency holds
-- row ids, so each was read from the table and sorted for DISTINCT.
CREATE INDEX IF NOT EXISTS ralph_mcp_deps_depends ON task_dependencies(depends_on_task_id, task_id);

-- list_tasks' sort by the day a task last changed and its updated_since filter (src/store/taskList.ts
-- changedDay, character for character): walked in order instead of sorting every task.
CREATE INDEX IF NOT EXISTS ralph_mcp_runtime_changed ON runtime_tasks((CASE WHEN coalesce(updated, created) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' THEN substr(coalesce(updated, created), 1, 10) ELSE '' END) DESC, id);

-- Each task's status, subsystem, discipline and priority in one narrow row: Ralph's head keeps the
-- discipline and priority in task_details, so counting tasks by discipline (get_project_progress) or
-- picking the most urgent ready one (claim_next_task) would look up every task's details row (~170 ms
-- at 100,000 tasks). Kept in step by the triggers below, whoever writes; filled whole when first made or
-- when a trigger was found missing (a rebuild of Ralph's tables drops the triggers on them).
--
-- Every trigger of ours reads only NEW/OLD and tables of ours: a trigger that named another of Ralph's
-- tables would make Ralph's own table rebuilds (create, copy, drop, rename) fail at the rename.
CREATE TABLE IF NOT EXISTS ralph_mcp_details_facets (
  details_id INTEGER PRIMARY KEY,
  discipline_id INTEGER,
  priority TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS ralph_mcp_task_facets (
  task_id INTEGER PRIMARY KEY,
  status TEXT,
  subsystem_id INTEGER,
  details_id INTEGER,
  discipline_id INTEGER,
  priority TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_task_facets_progress ON ralph_mcp_task_facets(status, subsystem_id, discipline_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_task_facets_details ON ralph_mcp_task_facets(details_id);
-- claim_next_task: pending tasks in claim order, the first ready one found without a sort (src/store/ready.ts).
CREATE INDEX IF NOT EXISTS ralph_mcp_task_facets_ready ON ralph_mcp_task_facets(status, (CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END), task_id);
-- list_tasks with a feature in id order: walked by id within the feature, the status read from the index
-- (sorting every match of a status and feature was 0.4 ms at 100,000 tasks; the page needs 50).
CREATE INDEX IF NOT EXISTS ralph_mcp_task_facets_feature ON ralph_mcp_task_facets(subsystem_id, task_id, status);
-- list_tasks sorted by priority (the claim's rank, then id): walked in order and stopped at a page.
CREATE INDEX IF NOT EXISTS ralph_mcp_task_facets_rank ON ralph_mcp_task_facets((CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END), task_id);
-- list_tasks' filter_tag: Ralph indexes task_tags by task only; this finds a tag's tasks (30 ms -> <1 ms at 100,000).
CREATE INDEX IF NOT EXISTS ralph_mcp_task_tags_tag ON task_tags(tag, task_id);

-- No OR IGNORE / OR REPLACE in these triggers: when Ralph's own write fires them through a foreign-key
-- action (a deleted discipline nulling its comments' column), SQLite applies that statement's conflict
-- policy (abort) instead of the trigger's, and a duplicate id would fail Ralph's write. Each insert says
-- NOT EXISTS itself. The triggers were renamed (_v2, _v3, …) when they changed, so older copies are dropped here.
DROP TRIGGER IF EXISTS ralph_mcp_facets_details_ai;
DROP TRIGGER IF EXISTS ralph_mcp_facets_details_ai_v2;
DROP TRIGGER IF EXISTS ralph_mcp_facets_details_au_v2;
DROP TRIGGER IF EXISTS ralph_mcp_facets_runtime_au_v3;
DROP TRIGGER IF EXISTS ralph_mcp_facets_details_au;
DROP TRIGGER IF EXISTS ralph_mcp_facets_details_ad;
DROP TRIGGER IF EXISTS ralph_mcp_facets_runtime_ai;
DROP TRIGGER IF EXISTS ralph_mcp_facets_runtime_au;
DROP TRIGGER IF EXISTS ralph_mcp_facets_runtime_ad;
DROP TRIGGER IF EXISTS ralph_mcp_facets_runtime_au_v2;
-- An insert may be an INSERT OR REPLACE of an existing id (no delete trigger fires then): the tasks of that
-- id take the new row's discipline and priority (none for a new row: one index probe).
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_details_ai_v3 AFTER INSERT ON task_details BEGIN
  DELETE FROM ralph_mcp_details_facets WHERE details_id = NEW.id;
  INSERT INTO ralph_mcp_details_facets (details_id, discipline_id, priority) VALUES (NEW.id, NEW.discipline_id, NEW.priority);
  UPDATE ralph_mcp_task_facets SET discipline_id = NEW.discipline_id, priority = NEW.priority WHERE details_id = NEW.id;
END;
-- A changed id (foreign keys off) moves the row: the old id's is deleted.
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_details_au_v3 AFTER UPDATE OF id, discipline_id, priority ON task_details BEGIN
  DELETE FROM ralph_mcp_details_facets WHERE details_id = OLD.id;
  DELETE FROM ralph_mcp_details_facets WHERE details_id = NEW.id;
  INSERT INTO ralph_mcp_details_facets (details_id, discipline_id, priority) VALUES (NEW.id, NEW.discipline_id, NEW.priority);
  UPDATE ralph_mcp_task_facets SET discipline_id = NEW.discipline_id, priority = NEW.priority WHERE details_id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_details_ad_v2 AFTER DELETE ON task_details BEGIN
  DELETE FROM ralph_mcp_details_facets WHERE details_id = OLD.id;
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_runtime_ai_v2 AFTER INSERT ON runtime_tasks BEGIN
  DELETE FROM ralph_mcp_task_facets WHERE task_id = NEW.id;
  INSERT INTO ralph_mcp_task_facets (task_id, status, subsystem_id, details_id, discipline_id, priority)
  SELECT NEW.id, NEW.status, NEW.subsystem_id, NEW.details_id, f.discipline_id, f.priority FROM (SELECT NULL) LEFT JOIN ralph_mcp_details_facets f ON f.details_id = NEW.details_id;
END;
-- A status change (most writes) updates the status alone: only the indexes holding it are rewritten.
-- The row is made again if it is missing (the UPDATE changed no row: changes() counts the trigger's
-- own last statement), as the full refresh below would. Asking the table itself (NOT EXISTS) made
-- every status write ~35 µs slower at 100,000 tasks.
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_runtime_status_v3 AFTER UPDATE OF status ON runtime_tasks
WHEN OLD.subsystem_id IS NEW.subsystem_id AND OLD.details_id IS NEW.details_id BEGIN
  UPDATE ralph_mcp_task_facets SET status = NEW.status WHERE task_id = NEW.id;
  INSERT INTO ralph_mcp_task_facets (task_id, status, subsystem_id, details_id, discipline_id, priority)
  SELECT NEW.id, NEW.status, NEW.subsystem_id, NEW.details_id, f.discipline_id, f.priority FROM (SELECT NULL) LEFT JOIN ralph_mcp_details_facets f ON f.details_id = NEW.details_id
  WHERE changes() = 0;
END;
-- A changed id moves the task's row (the old id's is deleted), so that later changes find it under the new one.
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_runtime_au_v4 AFTER UPDATE OF id, subsystem_id, details_id ON runtime_tasks BEGIN
  DELETE FROM ralph_mcp_task_facets WHERE task_id = OLD.id;
  DELETE FROM ralph_mcp_task_facets WHERE task_id = NEW.id;
  INSERT INTO ralph_mcp_task_facets (task_id, status, subsystem_id, details_id, discipline_id, priority)
  SELECT NEW.id, NEW.status, NEW.subsystem_id, NEW.details_id, f.discipline_id, f.priority FROM (SELECT NULL) LEFT JOIN ralph_mcp_details_facets f ON f.details_id = NEW.details_id;
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_facets_runtime_ad_v2 AFTER DELETE ON runtime_tasks BEGIN
  DELETE FROM ralph_mcp_task_facets WHERE task_id = OLD.id;
END;

-- Each task as get_task reads it (src/store/normalized/sql.ts TASK_COLUMNS, under the same names, values as
-- read: ANY keeps them exactly), so that reading a task is one row instead of four joined rows and a
-- statement per list (3× the legacy generation's read at 100,000 tasks). A cache, never the truth: a
-- row is taken only while it is fresh, and a task without one is read from Ralph's tables as before.
-- A change to a task's status, updated or completed (most writes) is made to the row too; any other change
-- to what it shows deletes it and queues the task (ralph_mcp_task_rows_stale), and our writes fill the
-- queue's rows again before they commit (src/store/normalized/taskRows.ts). Filled whole
-- when first made or when a trigger was found missing (as the facets above, on which it relies to find a
-- details row's, subsystem's or discipline's tasks).
--
-- A trigger's body (and WHEN) pins every column it names: SQLite refuses ALTER TABLE … DROP COLUMN of it.
-- The bodies below name only columns Ralph's own schema pins already (ids and foreign keys, indexed
-- columns, runtime_tasks.status and completed by its CHECK, updated by its timestamp trigger); every other
-- column is named only in an `UPDATE OF` list, which does not pin it (docs/storage.md).
-- The triggers were renamed when they changed, so older copies are dropped here.
DROP TRIGGER IF EXISTS ralph_mcp_rows_runtime_copy;
DROP TRIGGER IF EXISTS ralph_mcp_rows_runtime_joins;
DROP TRIGGER IF EXISTS ralph_mcp_rows_details_copy;
DROP TRIGGER IF EXISTS ralph_mcp_rows_details_joins;
DROP TRIGGER IF EXISTS ralph_mcp_rows_details_ai;
DROP TRIGGER IF EXISTS ralph_mcp_rows_details_au_v2;
DROP TRIGGER IF EXISTS ralph_mcp_rows_subsystems_ai;
DROP TRIGGER IF EXISTS ralph_mcp_rows_subsystems_au;
DROP TRIGGER IF EXISTS ralph_mcp_rows_disciplines_ai;
DROP TRIGGER IF EXISTS ralph_mcp_rows_disciplines_au;
CREATE TABLE IF NOT EXISTS ralph_mcp_task_rows (
  task_id INTEGER PRIMARY KEY,
  feature ANY, discipline ANY, title ANY, description ANY, status ANY, priority ANY, tags ANY,
  depends_on ANY, blocked_by ANY, created ANY, updated ANY, completed ANY, acceptance_criteria ANY,
  context_files ANY, output_artifacts ANY, hints ANY, estimated_turns ANY, provenance ANY, pseudocode ANY,
  enriched_at ANY, template_id ANY, template_title ANY,
  -- The template's details row, whose title is template_title (found without reading Ralph's tables).
  template_details_id ANY
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_task_rows_template ON ralph_mcp_task_rows(template_id) WHERE template_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS ralph_mcp_task_rows_template_details ON ralph_mcp_task_rows(template_details_id) WHERE template_details_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS ralph_mcp_task_rows_stale (task_id INTEGER PRIMARY KEY) STRICT;

-- One task's row out of date: deleted, and the task queued. Ids are Ralph's (AUTOINCREMENT, never
-- reused): a row whose task is gone is only deleted.
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_runtime_ai AFTER INSERT ON runtime_tasks BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.id);
END;
-- What a row copies from the runtime row as it is: a status change (most writes) is made in place.
-- `updated` is taken only from the update that set it: when Ralph's timestamp trigger (which sets it
-- when a statement left it unchanged) fires before ours, the outer statement's unchanged value would
-- otherwise overwrite what its nested update copied.
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_runtime_copy_v2 AFTER UPDATE OF status, updated, completed ON runtime_tasks BEGIN
  UPDATE ralph_mcp_task_rows SET status = NEW.status,
    updated = CASE WHEN NEW.updated IS NULL OR OLD.updated = NEW.updated THEN updated ELSE NEW.updated END,
    completed = NEW.completed
  WHERE task_id = NEW.id;
END;
-- Any other column a row shows: its joins (id, subsystem, details row, template) or a copied column
-- not pinned by Ralph's schema (named here only in the list).
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_runtime_au_v2 AFTER UPDATE OF id, subsystem_id, details_id, template_id, created, provenance, enriched_at ON runtime_tasks BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (OLD.id, NEW.id);
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_runtime_ad AFTER DELETE ON runtime_tasks BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.id;
END;
-- A list item of one task, or a `blocked` signal (its blocked_by).
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_tags_ai AFTER INSERT ON task_tags BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_tags_au AFTER UPDATE ON task_tags BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_tags_ad AFTER DELETE ON task_tags BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_deps_ai AFTER INSERT ON task_dependencies BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_deps_au AFTER UPDATE ON task_dependencies BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_deps_ad AFTER DELETE ON task_dependencies BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_criteria_ai AFTER INSERT ON task_acceptance_criteria BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_criteria_au AFTER UPDATE ON task_acceptance_criteria BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_criteria_ad AFTER DELETE ON task_acceptance_criteria BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_files_ai AFTER INSERT ON task_context_files BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_files_au AFTER UPDATE ON task_context_files BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_files_ad AFTER DELETE ON task_context_files BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_artifacts_ai AFTER INSERT ON task_output_artifacts BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_artifacts_au AFTER UPDATE ON task_output_artifacts BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_artifacts_ad AFTER DELETE ON task_output_artifacts BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_signals_ai AFTER INSERT ON task_signals WHEN NEW.verb = 'blocked' BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_signals_au AFTER UPDATE ON task_signals WHEN OLD.verb = 'blocked' OR NEW.verb = 'blocked' BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id = NEW.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_signals_ad AFTER DELETE ON task_signals WHEN OLD.verb = 'blocked' BEGIN
  DELETE FROM ralph_mcp_task_rows WHERE task_id = OLD.task_id;
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale WHERE task_id = OLD.task_id);
END;
-- Rows of several tasks: a details row (its tasks; a template's, the tasks pulled from it), a subsystem's
-- or a discipline's name (or the row itself, deleted with foreign keys off), a template. Their tasks are
-- found through our facets and the rows' own columns: a trigger of ours reads no table of Ralph's.
-- An insert may be an INSERT OR REPLACE of an existing id, which fires no delete trigger (recursive
-- triggers are off): the tasks that id's old row showed are made stale (a new id has none: an index probe).
-- The tasks are queued from the facets, rows or not: a task Ralph's code could not show (its subsystem,
-- discipline or details row missing, written with foreign keys off) has no row, and is queued when the row it
-- lacked appears, so that a task without a row is always queued (the unfiltered list page relies on it).
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_details_ai_v2 AFTER INSERT ON task_details BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT f.task_id FROM ralph_mcp_task_facets f WHERE f.details_id = NEW.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = f.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE details_id = NEW.id);
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE template_details_id = NEW.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE template_details_id = NEW.id;
END;
-- Its id, discipline, or a column a row shows (named only in the list: see above).
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_details_au_v3 AFTER UPDATE OF id, discipline_id, title, description, priority, hints, estimated_turns, pseudocode ON task_details BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT f.task_id FROM ralph_mcp_task_facets f WHERE f.details_id IN (OLD.id, NEW.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = f.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE details_id IN (OLD.id, NEW.id));
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE template_details_id IN (OLD.id, NEW.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE template_details_id IN (OLD.id, NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_details_ad AFTER DELETE ON task_details BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE details_id = OLD.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE details_id = OLD.id);
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE template_details_id = OLD.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE template_details_id = OLD.id;
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_subsystems_ai_v2 AFTER INSERT ON subsystems BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT f.task_id FROM ralph_mcp_task_facets f WHERE f.subsystem_id = NEW.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = f.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE subsystem_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_subsystems_au_v2 AFTER UPDATE OF id, name ON subsystems BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT f.task_id FROM ralph_mcp_task_facets f WHERE f.subsystem_id IN (OLD.id, NEW.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = f.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE subsystem_id IN (OLD.id, NEW.id));
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_subsystems_ad AFTER DELETE ON subsystems BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE subsystem_id = OLD.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE subsystem_id = OLD.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_disciplines_ai_v2 AFTER INSERT ON disciplines BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT f.task_id FROM ralph_mcp_task_facets f WHERE f.discipline_id = NEW.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = f.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE discipline_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_disciplines_au_v2 AFTER UPDATE OF id, name ON disciplines BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT f.task_id FROM ralph_mcp_task_facets f WHERE f.discipline_id IN (OLD.id, NEW.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = f.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE discipline_id IN (OLD.id, NEW.id));
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_disciplines_ad AFTER DELETE ON disciplines BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE discipline_id = OLD.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE task_id IN (SELECT task_id FROM ralph_mcp_task_facets WHERE discipline_id = OLD.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_templates_ai AFTER INSERT ON task_templates BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE template_id = NEW.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE template_id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_templates_au AFTER UPDATE OF id, details_id ON task_templates BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE template_id IN (OLD.id, NEW.id) AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE template_id IN (OLD.id, NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_rows_templates_ad AFTER DELETE ON task_templates BEGIN
  INSERT INTO ralph_mcp_task_rows_stale (task_id) SELECT r.task_id FROM ralph_mcp_task_rows r WHERE template_id = OLD.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_task_rows_stale q WHERE q.task_id = r.task_id);
  DELETE FROM ralph_mcp_task_rows WHERE template_id = OLD.id;
END;
