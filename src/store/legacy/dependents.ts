import type { Db } from '../../db/database.js';
import { ralphMcpDdl, triggerNames } from '../own/ddl.js';

/**
 * ralph_mcp_task_deps (schema/ralph-mcp-legacy.sql): every (dependency, task) pair of the legacy
 * generation's JSON depends_on lists, kept in step by triggers of ours, so that a task's dependents are
 * an index lookup instead of a scan of every task's list. It can be trusted once it was filled whole and
 * while all its triggers exist (as normalized/facets.ts); until then readers scan the lists.
 */

const TRIGGERS = triggerNames(ralphMcpDdl('legacy'), 'ralph_mcp_deps_');

const presentTriggers = (db: Db): number =>
  db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ralph\\_mcp\\_deps\\_%' ESCAPE '\\'").filter((r) => TRIGGERS.includes(r.name)).length;

/** Before our DDL runs: whether the mirror is whole (its table was filled and its triggers were there all along). */
export const dependentsIntact = (db: Db): boolean =>
  db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_meta'") !== undefined &&
  presentTriggers(db) === TRIGGERS.length &&
  db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'task_deps'") !== undefined;

/** After our DDL ran (triggers in place), inside its transaction: fill the mirror whole. */
export function rebuildDependents(db: Db): void {
  db.run('DELETE FROM ralph_mcp_task_deps');
  db.run(
    `INSERT OR IGNORE INTO ralph_mcp_task_deps (depends_on, task_id)
     SELECT CAST(d.value AS INTEGER), t.id FROM tasks t, json_each(CASE WHEN json_valid(t.depends_on) THEN t.depends_on ELSE '[]' END) d
     WHERE d.type = 'integer' OR (d.type = 'text' AND d.value <> '' AND d.value NOT GLOB '*[^0-9]*')`,
  );
  db.run("INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES ('task_deps', '1')");
}

const usable = new WeakSet<Db>();
/** Whether readers may use the mirror on this connection (checked until it holds, then remembered). */
export function dependentsUsable(db: Db): boolean {
  if (usable.has(db)) return true;
  const ok = dependentsIntact(db);
  if (ok) usable.add(db);
  return ok;
}
