-- ralph-mcp's own objects on the legacy generation (with ralph-mcp.sql, on first write).

-- get_project_progress counts tasks by status, feature and discipline: one pass over this small covering
-- index instead of every (large) task row: about 1 s -> 20 ms at 100,000 tasks. Named ralph_mcp_* like
-- everything of ours; Ralph's code never sees it, and dropping it only makes that tool slower.
CREATE INDEX IF NOT EXISTS ralph_mcp_tasks_progress ON tasks(status, feature, discipline);
