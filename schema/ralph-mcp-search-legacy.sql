-- Full-text search over tasks (search_tasks), built on first search.
--
-- The index must see rows Ralph writes directly. The triggers on Ralph's tables only queue the ids of
-- changed tasks in a plain table (no FTS5 needed in Ralph's own SQLite build, so a Ralph write can never
-- fail because of us); the next search re-indexes the queued tasks before it queries.
CREATE VIRTUAL TABLE IF NOT EXISTS ralph_mcp_search USING fts5(
  title, description, hints, acceptance, comments,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS ralph_mcp_search_dirty (task_id INTEGER PRIMARY KEY) STRICT;

-- No OR IGNORE / OR REPLACE in these triggers: when Ralph's own write fires them through a foreign-key
-- action (a deleted discipline nulling its comments' column), SQLite applies that statement's conflict
-- policy (abort) instead of the trigger's, and a duplicate id would fail Ralph's write. Each insert says
-- NOT EXISTS itself. The triggers were renamed (_v2) when they changed, so older copies are dropped here.
DROP TRIGGER IF EXISTS ralph_mcp_tasks_ai;
DROP TRIGGER IF EXISTS ralph_mcp_tasks_au;
DROP TRIGGER IF EXISTS ralph_mcp_tasks_ad;
DROP TRIGGER IF EXISTS ralph_mcp_comments_ai;
DROP TRIGGER IF EXISTS ralph_mcp_comments_au;
DROP TRIGGER IF EXISTS ralph_mcp_comments_ad;

CREATE TRIGGER IF NOT EXISTS ralph_mcp_tasks_ai_v2 AFTER INSERT ON tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.id);
END;
-- Only the columns the index reads (a status change, the bulk of task updates, re-indexes nothing);
-- _v3 since it stopped firing on every column.
DROP TRIGGER IF EXISTS ralph_mcp_tasks_au_v2;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_tasks_au_v3 AFTER UPDATE OF id, title, description, hints, acceptance_criteria ON tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.id);
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_tasks_ad_v2 AFTER DELETE ON tasks BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_comments_ai_v2 AFTER INSERT ON task_comments BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_comments_au_v2 AFTER UPDATE ON task_comments BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT NEW.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = NEW.task_id);
END;
CREATE TRIGGER IF NOT EXISTS ralph_mcp_comments_ad_v2 AFTER DELETE ON task_comments BEGIN
  INSERT INTO ralph_mcp_search_dirty (task_id) SELECT OLD.task_id WHERE NOT EXISTS (SELECT 1 FROM ralph_mcp_search_dirty WHERE task_id = OLD.task_id);
END;
