-- ralph-mcp's own tables, kept beside Ralph's in ralph.db, the same on both schema generations (what
-- differs is in ralph-mcp-legacy.sql / ralph-mcp-normalized.sql). Ralph's tables are never altered (an
-- index of ours adds no column and changes no row); these are created on first use (a write), and
-- versioned in ralph_mcp_meta, never in PRAGMA user_version (Ralph's).
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
