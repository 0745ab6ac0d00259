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

-- Who holds which task (claim_next_task), since when, and until when the lease runs: renewed by the
-- holder's calls, dropped when the task is released, finished or taken over. A task counts as held only
-- while it is in_progress: a row left behind by a crashed session means nothing once the task moved on.
-- A task in_progress without a row here (set by a person, or by Ralph) is never taken over.
CREATE TABLE IF NOT EXISTS ralph_mcp_claims (
  task_id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  claimed_at TEXT NOT NULL,
  lease_until TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_claims_session_idx ON ralph_mcp_claims(session_id);
CREATE INDEX IF NOT EXISTS ralph_mcp_claims_lease_idx ON ralph_mcp_claims(lease_until);

-- Which tasks each audit row is about (task_history): the session's own task, and the task a call named
-- (id, task_id, parent_id, on_task_id), so a reviewer's edit of task 5 is in task 5's history too.
CREATE TABLE IF NOT EXISTS ralph_mcp_audit_tasks (
  task_id INTEGER NOT NULL,
  audit_id INTEGER NOT NULL,
  PRIMARY KEY (task_id, audit_id)
) STRICT, WITHOUT ROWID;
