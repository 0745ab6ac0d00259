-- ralph-mcp's own tables, kept beside Ralph's in ralph.db. Ralph's tables are never altered (one index of
-- ours on tasks, below, adds no column and changes no row); these are
-- created on first use (a write), and versioned in ralph_mcp_meta, never in PRAGMA user_version (Ralph's).
-- Ralph reads ralph_mcp_signals and ralph_mcp_audit with plain SQL (see README). Every object of ours
-- (tables, indexes, triggers) is named ralph_mcp_*, so it is easy to tell apart from Ralph's.

CREATE TABLE IF NOT EXISTS ralph_mcp_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- An agent asking Ralph to end its session (signal_abort).
CREATE TABLE IF NOT EXISTS ralph_mcp_signals (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  recipe TEXT,
  discipline TEXT,
  task_id INTEGER,
  kind TEXT NOT NULL DEFAULT 'abort',
  reason TEXT NOT NULL,
  created TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_signals_session_idx ON ralph_mcp_signals(session_id);

-- One row per call that writes, and per refused call.
CREATE TABLE IF NOT EXISTS ralph_mcp_audit (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  recipe TEXT,
  discipline TEXT,
  task_id INTEGER,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  outcome TEXT NOT NULL,
  created TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_audit_session_idx ON ralph_mcp_audit(session_id);

-- get_project_progress counts tasks by status, feature and discipline: one pass over this small covering
-- index instead of every (large) task row: about 1 s -> 20 ms at 100,000 tasks. Named ralph_mcp_* like
-- everything of ours; Ralph's code never sees it, and dropping it only makes that tool slower.
CREATE INDEX IF NOT EXISTS ralph_mcp_tasks_progress ON tasks(status, feature, discipline);
