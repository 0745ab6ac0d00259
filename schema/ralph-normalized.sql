-- Ralph's database schema at its head (the normalized generation; PRAGMA user_version = 1), exactly as
-- Ralph's own migration (crates/sqlite-db/src/migrations/001_initial.sql) leaves it: `ralph-mcp init`
-- runs this file, and test/unit/schema.test.ts compares it with the databases Ralph's generator wrote.
-- Nothing of ralph-mcp's is added here: overrides, comment and learning metadata live in ralph_mcp_*
-- tables (schema/ralph-mcp-normalized.sql). user_version belongs to Ralph; init sets it to 1.

CREATE TABLE metadata (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  schema_version TEXT NOT NULL DEFAULT '1.0',
  project_title TEXT NOT NULL,
  project_description TEXT,
  project_created TEXT
) STRICT;

CREATE TABLE subsystems (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  display_name TEXT NOT NULL,
  acronym TEXT NOT NULL UNIQUE,
  description TEXT,
  architecture TEXT,
  boundaries TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK(status IN ('active','archived')),
  created TEXT
) STRICT;

CREATE TABLE subsystem_knowledge_paths (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE CASCADE,
  path TEXT NOT NULL
) STRICT;

CREATE TABLE subsystem_context_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE CASCADE,
  file_path TEXT NOT NULL
) STRICT;

CREATE TABLE subsystem_learnings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE CASCADE,
  learning TEXT NOT NULL
) STRICT;

CREATE TABLE subsystem_dependencies (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE CASCADE,
  depends_on_subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE CASCADE,
  CHECK (subsystem_id != depends_on_subsystem_id),
  UNIQUE(subsystem_id, depends_on_subsystem_id)
) STRICT;

CREATE TABLE disciplines (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  display_name TEXT NOT NULL,
  acronym TEXT NOT NULL UNIQUE,
  icon TEXT NOT NULL,
  color TEXT NOT NULL,
  description TEXT,
  system_prompt TEXT,
  agent TEXT CHECK(agent IN ('claude','codex') OR agent IS NULL),
  model TEXT,
  effort TEXT CHECK(effort IN ('low','medium','high') OR effort IS NULL),
  thinking INTEGER CHECK(thinking IN (0,1) OR thinking IS NULL),
  conventions TEXT,
  stack_id INTEGER,
  image_path TEXT,
  crops TEXT,
  image_prompt TEXT
) STRICT;

CREATE TABLE discipline_skills (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  discipline_id INTEGER NOT NULL REFERENCES disciplines(id) ON DELETE CASCADE,
  skill TEXT NOT NULL
) STRICT;

CREATE TABLE discipline_mcp_servers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  discipline_id INTEGER NOT NULL REFERENCES disciplines(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  command TEXT NOT NULL
) STRICT;

CREATE TABLE discipline_mcp_server_args (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  server_id INTEGER NOT NULL REFERENCES discipline_mcp_servers(id) ON DELETE CASCADE,
  arg TEXT NOT NULL,
  arg_order INTEGER NOT NULL
) STRICT;

CREATE TABLE discipline_mcp_server_env (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  server_id INTEGER NOT NULL REFERENCES discipline_mcp_servers(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  UNIQUE(server_id, key)
) STRICT;

CREATE TABLE task_details (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  discipline_id INTEGER NOT NULL REFERENCES disciplines(id) ON DELETE RESTRICT,
  title TEXT NOT NULL,
  description TEXT,
  priority TEXT CHECK(priority IN ('low','medium','high','critical') OR priority IS NULL),
  hints TEXT,
  estimated_turns INTEGER,
  agent TEXT CHECK(agent IN ('claude','codex') OR agent IS NULL),
  model TEXT,
  effort TEXT CHECK(effort IN ('low','medium','high') OR effort IS NULL),
  thinking INTEGER CHECK(thinking IN (0,1) OR thinking IS NULL),
  pseudocode TEXT,
  created TEXT,
  updated TEXT
) STRICT;

CREATE TABLE task_templates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  details_id INTEGER NOT NULL REFERENCES task_details(id) ON DELETE RESTRICT,
  is_active INTEGER NOT NULL DEFAULT 1 CHECK(is_active IN (0,1)),
  created TEXT,
  updated TEXT,
  UNIQUE(details_id)
) STRICT;

CREATE TABLE runtime_tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE RESTRICT,
  details_id INTEGER NOT NULL REFERENCES task_details(id) ON DELETE RESTRICT,
  template_id INTEGER REFERENCES task_templates(id) ON DELETE SET NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK(status IN ('draft','pending','in_progress','done','blocked','skipped','needs_input','failed')),
  provenance TEXT CHECK(provenance IN ('agent','human','system') OR provenance IS NULL),
  enriched_at TEXT,
  created TEXT,
  updated TEXT,
  completed TEXT,
  CHECK((status = 'done' AND completed IS NOT NULL) OR (status != 'done'))
) STRICT;

CREATE TABLE task_tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  tag TEXT NOT NULL
) STRICT;

CREATE TABLE task_dependencies (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  depends_on_task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  CHECK (task_id != depends_on_task_id),
  UNIQUE(task_id, depends_on_task_id)
) STRICT;

CREATE TABLE task_acceptance_criteria (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  criterion TEXT NOT NULL,
  criterion_order INTEGER NOT NULL
) STRICT;

CREATE TABLE task_context_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  file_path TEXT NOT NULL
) STRICT;

CREATE TABLE task_output_artifacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  artifact_path TEXT NOT NULL
) STRICT;

CREATE TABLE agent_sessions (
  id TEXT PRIMARY KEY, -- e.g. RALPH_SESSION_ID
  session_number INTEGER NOT NULL UNIQUE CHECK(session_number > 0),
  kind TEXT NOT NULL CHECK(kind IN ('task_execution','human_braindump','manual','review')),
  started_by TEXT NOT NULL CHECK(started_by IN ('agent','human','system')),
  task_id INTEGER REFERENCES runtime_tasks(id) ON DELETE SET NULL,
  agent TEXT, -- claude, codex, etc.
  model TEXT,
  launch_command TEXT,
  post_start_preamble TEXT, -- newline-delimited steps; interpreted by agent-specific runner
  init_prompt TEXT,
  started TEXT NOT NULL DEFAULT (datetime('now')),
  ended TEXT,
  exit_code INTEGER,
  closing_verb TEXT CHECK(closing_verb IN ('done','partial','stuck') OR closing_verb IS NULL),
  status TEXT NOT NULL DEFAULT 'running' CHECK(status IN ('running','finished','crashed','timed_out','cancelled')),
  prompt_hash TEXT,
  output_bytes INTEGER CHECK(output_bytes >= 0 OR output_bytes IS NULL),
  error_text TEXT,
  CHECK((status = 'running' AND ended IS NULL) OR (status != 'running'))
) STRICT;

CREATE TABLE task_signals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES runtime_tasks(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,

  verb TEXT NOT NULL CHECK(verb IN ('done','partial','stuck','ask','flag','learned','suggest','blocked')),

  -- Verb payload fields (flat columns)
  text TEXT,
  summary TEXT,
  remaining TEXT,
  reason TEXT,
  question TEXT,
  what TEXT,
  "on" TEXT,

  -- Metadata
  blocking INTEGER CHECK(blocking IN (0,1) OR blocking IS NULL),
  severity TEXT CHECK(severity IN ('info','warning','blocking') OR severity IS NULL),
  category TEXT CHECK(category IN ('bug','stale','contradiction','ambiguity','overlap','performance','security','incomplete_prior') OR category IS NULL),
  kind TEXT,
  scope TEXT CHECK(scope IN ('project','subsystem','task') OR scope IS NULL),

  -- Additional details
  preferred TEXT,
  options TEXT, -- newline-separated for 'ask' verb
  rationale TEXT,
  why TEXT,
  detail TEXT,

  -- Answer
  answer TEXT,

  created TEXT NOT NULL DEFAULT (datetime('now')),

  -- Verb-specific shape (required + disallowed fields)
  CHECK(
    (verb = 'done' AND summary IS NOT NULL AND remaining IS NULL AND reason IS NULL AND question IS NULL AND what IS NULL AND text IS NULL AND "on" IS NULL) OR
    (verb = 'partial' AND summary IS NOT NULL AND remaining IS NOT NULL AND reason IS NULL AND question IS NULL AND what IS NULL AND text IS NULL AND "on" IS NULL) OR
    (verb = 'stuck' AND reason IS NOT NULL AND summary IS NULL AND remaining IS NULL AND question IS NULL AND what IS NULL AND text IS NULL AND "on" IS NULL) OR
    (verb = 'ask' AND question IS NOT NULL AND blocking IS NOT NULL AND summary IS NULL AND remaining IS NULL AND reason IS NULL AND what IS NULL AND text IS NULL AND "on" IS NULL) OR
    (verb = 'flag' AND what IS NOT NULL AND severity IS NOT NULL AND category IS NOT NULL AND summary IS NULL AND remaining IS NULL AND reason IS NULL AND question IS NULL AND text IS NULL AND "on" IS NULL) OR
    (verb = 'learned' AND text IS NOT NULL AND kind IS NOT NULL AND summary IS NULL AND remaining IS NULL AND reason IS NULL AND question IS NULL AND what IS NULL AND "on" IS NULL) OR
    (verb = 'suggest' AND what IS NOT NULL AND kind IS NOT NULL AND why IS NOT NULL AND summary IS NULL AND remaining IS NULL AND reason IS NULL AND question IS NULL AND text IS NULL AND "on" IS NULL) OR
    (verb = 'blocked' AND "on" IS NOT NULL AND kind IS NOT NULL AND summary IS NULL AND remaining IS NULL AND reason IS NULL AND question IS NULL AND what IS NULL AND text IS NULL)
  ),

  -- Field-level enums by verb
  CHECK(
    (verb = 'flag' AND severity IN ('info','warning','blocking') AND category IN ('bug','stale','contradiction','ambiguity','overlap','performance','security','incomplete_prior')) OR
    (verb != 'flag' AND severity IS NULL AND category IS NULL)
  ),
  CHECK(
    (verb = 'learned' AND kind IN ('discovery','decision','convention')) OR
    (verb = 'suggest' AND kind IN ('new_task','split','refactor','alternative','deprecate')) OR
    (verb = 'blocked' AND kind IN ('upstream_task','external')) OR
    (verb NOT IN ('learned','suggest','blocked') AND kind IS NULL)
  ),
  CHECK(
    (verb = 'learned' AND (scope IN ('project','subsystem','task') OR scope IS NULL)) OR
    (verb != 'learned' AND scope IS NULL)
  ),
  CHECK((verb = 'ask') OR (blocking IS NULL AND options IS NULL AND preferred IS NULL AND answer IS NULL)),
  CHECK((verb = 'learned') OR (rationale IS NULL)),
  CHECK((verb = 'suggest') OR (why IS NULL)),
  CHECK((verb = 'blocked') OR (detail IS NULL)),

  FOREIGN KEY (session_id) REFERENCES agent_sessions(id) ON DELETE CASCADE
) STRICT;

CREATE TABLE task_signal_comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  signal_id INTEGER NOT NULL REFERENCES task_signals(id) ON DELETE CASCADE,
  session_id TEXT REFERENCES agent_sessions(id) ON DELETE SET NULL,
  author_type TEXT NOT NULL CHECK(author_type IN ('human','agent','system')),
  body TEXT NOT NULL,
  created TEXT NOT NULL DEFAULT (datetime('now'))
) STRICT;

CREATE TABLE subsystem_comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subsystem_id INTEGER NOT NULL REFERENCES subsystems(id) ON DELETE CASCADE,
  category TEXT NOT NULL CHECK(category IN ('architecture','boundary','learning','convention','dependency','design-decision','gotcha')),
  discipline_id INTEGER REFERENCES disciplines(id) ON DELETE SET NULL,
  agent_task_id INTEGER,
  body TEXT NOT NULL,
  summary TEXT,
  reason TEXT,
  source_iteration INTEGER,
  created TEXT,
  updated TEXT
) STRICT;

CREATE TABLE comment_embeddings (
  comment_id INTEGER PRIMARY KEY REFERENCES subsystem_comments(id) ON DELETE CASCADE,
  embedding BLOB NOT NULL,
  embedding_model TEXT NOT NULL,
  embedding_hash TEXT NOT NULL
) STRICT;

CREATE TABLE prompt_builder_configs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  base_prompt TEXT NOT NULL,
  section_order TEXT NOT NULL,
  sections TEXT NOT NULL,
  created TEXT,
  updated TEXT
) STRICT;

CREATE INDEX idx_subsystems_name ON subsystems(name);

CREATE INDEX idx_disciplines_name ON disciplines(name);

CREATE INDEX idx_task_details_discipline ON task_details(discipline_id);

CREATE INDEX idx_task_templates_details ON task_templates(details_id);

CREATE INDEX idx_task_templates_active ON task_templates(is_active);

CREATE INDEX idx_runtime_tasks_subsystem ON runtime_tasks(subsystem_id);

CREATE INDEX idx_runtime_tasks_details ON runtime_tasks(details_id);

CREATE INDEX idx_runtime_tasks_template ON runtime_tasks(template_id);

CREATE INDEX idx_runtime_tasks_status ON runtime_tasks(status);

CREATE INDEX idx_task_tags_task ON task_tags(task_id);

CREATE INDEX idx_task_deps_task ON task_dependencies(task_id);

CREATE INDEX idx_task_deps_depends ON task_dependencies(depends_on_task_id);

CREATE INDEX idx_agent_sessions_task ON agent_sessions(task_id);

CREATE INDEX idx_agent_sessions_status ON agent_sessions(status);

CREATE INDEX idx_agent_sessions_started ON agent_sessions(started);

CREATE INDEX idx_signals_task ON task_signals(task_id);

CREATE INDEX idx_signals_session ON task_signals(session_id);

CREATE INDEX idx_signals_verb ON task_signals(verb);

CREATE INDEX idx_signals_task_verb ON task_signals(task_id, verb);

CREATE INDEX idx_signal_comments_signal ON task_signal_comments(signal_id);

CREATE INDEX idx_signal_comments_session ON task_signal_comments(session_id);

CREATE INDEX idx_signal_comments_created ON task_signal_comments(created);

CREATE INDEX idx_subsystem_comments_subsystem ON subsystem_comments(subsystem_id);

CREATE INDEX idx_subsystem_comments_category ON subsystem_comments(category);

CREATE INDEX idx_subsystem_comments_discipline ON subsystem_comments(discipline_id);

CREATE INDEX idx_prompt_builder_configs_name ON prompt_builder_configs(name);

CREATE TRIGGER update_task_details_timestamp
AFTER UPDATE ON task_details
FOR EACH ROW
WHEN NEW.updated IS NULL OR OLD.updated = NEW.updated
BEGIN
  UPDATE task_details SET updated = datetime('now') WHERE id = NEW.id;
END;

CREATE TRIGGER update_task_templates_timestamp
AFTER UPDATE ON task_templates
FOR EACH ROW
WHEN NEW.updated IS NULL OR OLD.updated = NEW.updated
BEGIN
  UPDATE task_templates SET updated = datetime('now') WHERE id = NEW.id;
END;

CREATE TRIGGER update_runtime_task_timestamp
AFTER UPDATE ON runtime_tasks
FOR EACH ROW
WHEN NEW.updated IS NULL OR OLD.updated = NEW.updated
BEGIN
  UPDATE runtime_tasks SET updated = datetime('now') WHERE id = NEW.id;
END;
