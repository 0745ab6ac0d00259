-- ralph-mcp's own objects on the legacy generation (with ralph-mcp.sql, on first write).

-- get_project_progress counts tasks by status, feature and discipline: one pass over this small covering
-- index instead of every (large) task row: about 1 s -> 20 ms at 100,000 tasks. Named ralph_mcp_* like
-- everything of ours; Ralph's code never sees it, and dropping it only makes that tool slower.
CREATE INDEX IF NOT EXISTS ralph_mcp_tasks_progress ON tasks(status, feature, discipline);

-- claim_next_task walks pending tasks in claim order (priority rank, then id) and stops at the first
-- ready one, instead of checking every pending task's dependencies and sorting: ~50 ms -> ~1 ms at
-- 100,000 tasks. The expression is PRIORITY_RANK in src/store/ready.ts, character for character.
CREATE INDEX IF NOT EXISTS ralph_mcp_tasks_ready ON tasks(status, (CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END), id);

-- list_tasks' sorts (src/store/taskList.ts): by priority (the claim's rank, then id) and by
-- the day a task last changed (newest first, then id), walked in order and stopped at a page instead of
-- sorting every task; the rank also serves filter_priority and the day updated_since. The expressions
-- are priorityRank and changedDay, character for character. Measured at 100,000 tasks: see the commit.
CREATE INDEX IF NOT EXISTS ralph_mcp_tasks_rank ON tasks((CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END), id);
CREATE INDEX IF NOT EXISTS ralph_mcp_tasks_changed ON tasks((CASE WHEN coalesce(updated, created) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' THEN substr(coalesce(updated, created), 1, 10) ELSE '' END) DESC, id);

-- Ralph's signal verbs (done, partial, stuck, ask, flag, learned, suggest, blocked): this generation of
-- Ralph's schema has no table for them, so they are kept here with exactly the columns and value sets of
-- Ralph's later task_signals (a migration moves them there), each beside the task comment
-- (comment_id) that lets a person see it in Ralph's UI. A person's answer to an `ask` goes in `answer`.
CREATE TABLE IF NOT EXISTS ralph_mcp_task_signals (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  verb TEXT NOT NULL CHECK (verb IN ('done', 'partial', 'stuck', 'ask', 'flag', 'learned', 'suggest', 'blocked')),
  text TEXT,
  summary TEXT,
  remaining TEXT,
  reason TEXT,
  question TEXT,
  what TEXT,
  "on" TEXT,
  blocking INTEGER CHECK (blocking IN (0, 1) OR blocking IS NULL),
  severity TEXT CHECK (severity IN ('info', 'warning', 'blocking') OR severity IS NULL),
  category TEXT CHECK (category IN ('bug', 'stale', 'contradiction', 'ambiguity', 'overlap', 'performance', 'security', 'incomplete_prior') OR category IS NULL),
  kind TEXT,
  scope TEXT CHECK (scope IN ('project', 'subsystem', 'task') OR scope IS NULL),
  preferred TEXT,
  options TEXT,
  rationale TEXT,
  why TEXT,
  detail TEXT,
  answer TEXT,
  comment_id INTEGER,
  created TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_task_signals_task ON ralph_mcp_task_signals(task_id);

-- Who depends on whom, one row per (task, dependency): the legacy generation keeps a task's dependencies
-- as a JSON array in its own row, so "which tasks depend on task N" (get_task's dependents, delete_task,
-- spawn_subtasks) read every task's list: ~30 ms at 100,000 tasks, on every get_task. Kept in step by the
-- triggers below, whoever writes; filled whole when first made or when a trigger was found missing
-- (src/store/legacy/listMirrors.ts). Items that are not task ids (Ralph keeps what it does not
-- understand) are not mirrored, as dependency reads skip them. DISTINCT, not only OR IGNORE: a
-- statement's own conflict clause (or a foreign-key action's) overrides a trigger's, and a list naming
-- one task twice must never make Ralph's write fail.
CREATE TABLE IF NOT EXISTS ralph_mcp_task_deps (
  depends_on INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  PRIMARY KEY (depends_on, task_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ralph_mcp_task_deps_task ON ralph_mcp_task_deps(task_id);

CREATE TRIGGER IF NOT EXISTS ralph_mcp_deps_ai AFTER INSERT ON tasks BEGIN
  INSERT OR IGNORE INTO ralph_mcp_task_deps (depends_on, task_id)
  SELECT DISTINCT CAST(value AS INTEGER), NEW.id FROM json_each(CASE WHEN json_valid(NEW.depends_on) THEN NEW.depends_on ELSE '[]' END)
  WHERE type = 'integer' OR (type = 'text' AND value <> '' AND value NOT GLOB '*[^0-9]*');
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_deps_au AFTER UPDATE OF id, depends_on ON tasks BEGIN
  DELETE FROM ralph_mcp_task_deps WHERE task_id = OLD.id;
  INSERT OR IGNORE INTO ralph_mcp_task_deps (depends_on, task_id)
  SELECT DISTINCT CAST(value AS INTEGER), NEW.id FROM json_each(CASE WHEN json_valid(NEW.depends_on) THEN NEW.depends_on ELSE '[]' END)
  WHERE type = 'integer' OR (type = 'text' AND value <> '' AND value NOT GLOB '*[^0-9]*');
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_deps_ad AFTER DELETE ON tasks BEGIN
  DELETE FROM ralph_mcp_task_deps WHERE task_id = OLD.id;
END;

-- Which tasks carry which tag, one row per (tag, task): list_tasks' filter_tag read every task's JSON
-- list (60 ms at 100,000 tasks, on every page and count); this is an index range. Tags as tag reads
-- return them (the strings of the list). Kept in step and trusted as ralph_mcp_task_deps above.
CREATE TABLE IF NOT EXISTS ralph_mcp_task_tags (
  tag TEXT NOT NULL,
  task_id INTEGER NOT NULL,
  PRIMARY KEY (tag, task_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ralph_mcp_task_tags_task ON ralph_mcp_task_tags(task_id);

CREATE TRIGGER IF NOT EXISTS ralph_mcp_tags_ai AFTER INSERT ON tasks BEGIN
  INSERT OR IGNORE INTO ralph_mcp_task_tags (tag, task_id)
  SELECT DISTINCT value, NEW.id FROM json_each(CASE WHEN json_valid(NEW.tags) THEN NEW.tags ELSE '[]' END) WHERE type = 'text';
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_tags_au AFTER UPDATE OF id, tags ON tasks BEGIN
  DELETE FROM ralph_mcp_task_tags WHERE task_id = OLD.id;
  INSERT OR IGNORE INTO ralph_mcp_task_tags (tag, task_id)
  SELECT DISTINCT value, NEW.id FROM json_each(CASE WHEN json_valid(NEW.tags) THEN NEW.tags ELSE '[]' END) WHERE type = 'text';
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_tags_ad AFTER DELETE ON tasks BEGIN
  DELETE FROM ralph_mcp_task_tags WHERE task_id = OLD.id;
END;

-- Feature knowledge other than learnings (architecture, boundary, convention, dependency, design-decision,
-- gotcha): Ralph's later schema keeps every category in subsystem_comments, this generation only learnings
-- (features.learnings). Kept here with subsystem_comments' columns, the feature and discipline by name, for
-- a migration to move into that table (docs/knowledge.md). A deleted feature's rows go with it (the
-- trigger), so a feature created again under its name does not inherit them.
CREATE TABLE IF NOT EXISTS ralph_mcp_feature_knowledge (
  id INTEGER PRIMARY KEY,
  feature TEXT NOT NULL,
  category TEXT NOT NULL
    CHECK (category IN ('architecture', 'boundary', 'convention', 'dependency', 'design-decision', 'gotcha')),
  discipline TEXT,
  agent_task_id INTEGER,
  body TEXT NOT NULL,
  summary TEXT,
  reason TEXT,
  source_iteration INTEGER,
  created TEXT NOT NULL,
  updated TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_feature_knowledge_feature ON ralph_mcp_feature_knowledge(feature, category);

CREATE TRIGGER IF NOT EXISTS ralph_mcp_feature_knowledge_ad AFTER DELETE ON features BEGIN
  DELETE FROM ralph_mcp_feature_knowledge WHERE feature = OLD.name;
END;
