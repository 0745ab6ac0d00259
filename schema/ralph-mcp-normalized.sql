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

-- get_project_progress counts tasks by status, subsystem and discipline in one grouped pass: this covering
-- index holds all it reads of runtime_tasks (the discipline comes through details_id).
CREATE INDEX IF NOT EXISTS ralph_mcp_runtime_progress ON runtime_tasks(status, subsystem_id, details_id);

-- Ralph's head indexes some list tables by task and not others: reading one task's criteria, context files
-- or artifacts would scan every task's. These make each list a search (made on first write, like all of
-- ours; Ralph's code never sees them, and dropping them only makes reads slower).
CREATE INDEX IF NOT EXISTS ralph_mcp_criteria_task ON task_acceptance_criteria(task_id, criterion_order);
CREATE INDEX IF NOT EXISTS ralph_mcp_context_files_task ON task_context_files(task_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_artifacts_task ON task_output_artifacts(task_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_knowledge_paths_subsystem ON subsystem_knowledge_paths(subsystem_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_subsystem_files_subsystem ON subsystem_context_files(subsystem_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_skills_discipline ON discipline_skills(discipline_id);
