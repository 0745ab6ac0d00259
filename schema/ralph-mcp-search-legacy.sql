-- Full-text search over tasks (search_tasks), built on first search.
--
-- The index must see rows Ralph writes directly. The triggers on Ralph's tables only queue the ids of
-- changed tasks in a plain table (no FTS5 needed in Ralph's own SQLite build, so a Ralph write can never
-- fail because of us); the next search re-indexes the queued tasks before it queries. A queued id is
-- skipped with NOT EXISTS, not OR IGNORE: a foreign-key action (ON DELETE SET NULL on comments) or a
-- statement's own conflict clause overrides a trigger's, and a second comment of one task then failed
-- Ralph's delete with a UNIQUE error.
CREATE VIRTUAL TABLE IF NOT EXISTS ralph_mcp_search USING fts5(
  title, description, hints, acceptance, comments,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS ralph_mcp_search_dirty (task_id INTEGER PRIMARY KEY) STRICT;

CREATE TRIGGER IF NOT EXISTS ralph_mcp_tasks_ai AFTER INSERT ON tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_tasks_au AFTER UPDATE ON tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.id);
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_tasks_ad AFTER DELETE ON tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_comments_ai AFTER INSERT ON task_comments BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_comments_au AFTER UPDATE ON task_comments BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_comments_ad AFTER DELETE ON task_comments BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
END;
