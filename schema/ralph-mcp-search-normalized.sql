-- Full-text search over tasks (search_tasks) on the normalized generation, built on first search.
--
-- The index must see rows Ralph writes directly. The triggers on Ralph's tables only queue the ids of
-- changed runtime tasks in a plain table (no FTS5 needed in Ralph's own SQLite build, so a Ralph write can
-- never fail because of us); the next search re-indexes the queued tasks before it queries. A queued id is
-- skipped with NOT EXISTS, not OR IGNORE: a foreign-key action (ON DELETE SET NULL on comments) or a
-- statement's own conflict clause overrides a trigger's, and a second comment of one task then failed
-- Ralph's delete with a UNIQUE error. A task's text
-- lives in its runtime row's details, its acceptance criteria and its signals (comments are signals here).
CREATE VIRTUAL TABLE IF NOT EXISTS ralph_mcp_search USING fts5(
  title, description, hints, acceptance, comments,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS ralph_mcp_search_dirty (task_id INTEGER PRIMARY KEY) STRICT;

CREATE TRIGGER IF NOT EXISTS ralph_mcp_runtime_tasks_ai AFTER INSERT ON runtime_tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_runtime_tasks_au AFTER UPDATE OF details_id ON runtime_tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_runtime_tasks_ad AFTER DELETE ON runtime_tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.id);
END;
-- A details row may be shared (a template's, pulled by several tasks): every task using it is queued,
-- found through our facets mirror (a trigger of ours names no other table of Ralph's: see
-- ralph-mcp-normalized.sql).
CREATE TRIGGER IF NOT EXISTS ralph_mcp_task_details_au AFTER UPDATE OF title, description, hints ON task_details BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT DISTINCT f.task_id FROM ralph_mcp_task_facets f WHERE f.details_id = NEW.id AND NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty q WHERE q.task_id = f.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_criteria_ai AFTER INSERT ON task_acceptance_criteria BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_criteria_au AFTER UPDATE ON task_acceptance_criteria BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_criteria_ad AFTER DELETE ON task_acceptance_criteria BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_signals_ai AFTER INSERT ON task_signals BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_signals_au AFTER UPDATE ON task_signals BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_signals_ad AFTER DELETE ON task_signals BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
END;
