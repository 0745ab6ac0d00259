-- What the search index keeps on both generations beside its per-generation part.
--
-- Each task's title as create_task's duplicate check compares titles (NFC, lower case, runs of spaces as
-- one, trimmed: src/domain/similarity.ts titleKey), kept from the same change queue as the search index
-- (and rebuilt with it): an exact duplicate title is one index lookup at any number of tasks.
CREATE TABLE IF NOT EXISTS ralph_mcp_title_keys (task_id INTEGER PRIMARY KEY, key TEXT NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS ralph_mcp_title_keys_key ON ralph_mcp_title_keys(key);
