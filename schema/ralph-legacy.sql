-- Ralph's database schema (PRAGMA user_version = 1), as written by Ralph's own code.
-- `ralph-mcp init` runs this file. It must stay identical to the tables Ralph creates
-- (see test/unit/schema.test.ts, which compares it with the fixture databases), plus the
-- one column SPEC-070 adds: disciplines.mcp_tool_overrides (nullable JSON
-- {"additional_disabled": [...]}). user_version belongs to Ralph; init sets it to 1.

CREATE TABLE metadata (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  schema_version TEXT NOT NULL DEFAULT '1.0',
  project_title TEXT NOT NULL,
  project_description TEXT,
  project_created TEXT
) STRICT;

CREATE TABLE features (
  name TEXT PRIMARY KEY,
  display_name TEXT NOT NULL,
  acronym TEXT NOT NULL UNIQUE,
  description TEXT,
  created TEXT,
  knowledge_paths TEXT DEFAULT '[]',
  context_files TEXT DEFAULT '[]',
  architecture TEXT,
  boundaries TEXT,
  learnings TEXT DEFAULT '[]',
  dependencies TEXT DEFAULT '[]'
) STRICT;

CREATE TABLE disciplines (
  name TEXT PRIMARY KEY,
  display_name TEXT NOT NULL,
  acronym TEXT NOT NULL UNIQUE,
  icon TEXT NOT NULL,
  color TEXT NOT NULL,
  system_prompt TEXT,
  skills TEXT DEFAULT '[]',
  conventions TEXT,
  mcp_servers TEXT DEFAULT '[]',
  stack_id INTEGER DEFAULT NULL,
  image_path TEXT DEFAULT NULL,
  crops TEXT DEFAULT NULL,
  description TEXT DEFAULT NULL,
  image_prompt TEXT DEFAULT NULL,
  mcp_tool_overrides TEXT DEFAULT NULL
) STRICT;

CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  feature TEXT NOT NULL REFERENCES features(name) ON DELETE RESTRICT,
  discipline TEXT NOT NULL REFERENCES disciplines(name) ON DELETE RESTRICT,
  title TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL DEFAULT 'pending',
  priority TEXT,
  tags TEXT DEFAULT '[]',
  depends_on TEXT DEFAULT '[]',
  blocked_by TEXT,
  created TEXT,
  updated TEXT,
  completed TEXT,
  acceptance_criteria TEXT DEFAULT '[]',
  context_files TEXT DEFAULT '[]',
  output_artifacts TEXT DEFAULT '[]',
  hints TEXT,
  estimated_turns INTEGER,
  provenance TEXT,
  pseudocode TEXT DEFAULT NULL,
  enriched_at TEXT DEFAULT NULL
) STRICT;

CREATE TABLE task_comments (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  author TEXT NOT NULL,
  discipline TEXT REFERENCES disciplines(name) ON DELETE SET NULL,
  agent_task_id INTEGER,
  priority TEXT DEFAULT NULL,
  body TEXT NOT NULL,
  created TEXT
) STRICT;

CREATE TABLE recipe_configs (
  name TEXT PRIMARY KEY,
  base_recipe TEXT NOT NULL,
  section_order TEXT NOT NULL DEFAULT '[]',
  sections TEXT NOT NULL DEFAULT '{}',
  created TEXT,
  updated TEXT
) STRICT;

CREATE INDEX idx_tasks_feature ON tasks(feature);
CREATE INDEX idx_tasks_discipline ON tasks(discipline);
CREATE INDEX idx_tasks_status ON tasks(status);
CREATE INDEX idx_comments_task ON task_comments(task_id);
