import type { MirrorHooks } from '../own/schema.js';
import type { Db } from '../../db/database.js';
import { onceTrue, ralphMcpDdl, triggerNames } from '../own/ddl.js';
import { hasOwnTables } from './sql.js';
import { rebuildTaskRows, taskRowsIntact } from './taskRows.js';

/**
 * ralph_mcp_task_facets: each task's status, subsystem, discipline and priority in one narrow row kept by our
 * triggers, so counting and picking tasks need not read every details row. It is trusted only once filled
 * whole and while all its triggers exist; until then readers use the joins.
 */

/** The facet triggers our DDL creates, by name (read from the file: no list to keep in step). */
const TRIGGERS = triggerNames(ralphMcpDdl('normalized'), 'ralph_mcp_facets_');

const presentTriggers = (db: Db): number =>
  db
    .all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ralph\\_mcp\\_facets\\_%' ESCAPE '\\'",
    )
    .filter((r) => TRIGGERS.includes(r.name)).length;

/** Before our DDL runs: whether the mirror is whole (its triggers were all there all along). */
export const facetsIntact = (db: Db): boolean =>
  hasOwnTables(db) &&
  presentTriggers(db) === TRIGGERS.length &&
  db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'task_facets'") !== undefined;

/** After our DDL ran (triggers in place), inside its transaction: fill the mirror whole. */
export function rebuildFacets(db: Db): void {
  db.run('DELETE FROM ralph_mcp_details_facets');
  db.run(
    'INSERT INTO ralph_mcp_details_facets (details_id, discipline_id, priority) SELECT id, discipline_id, priority FROM task_details',
  );
  db.run('DELETE FROM ralph_mcp_task_facets');
  db.run(
    `INSERT INTO ralph_mcp_task_facets (task_id, status, subsystem_id, details_id, discipline_id, priority)
     SELECT t.id, t.status, t.subsystem_id, t.details_id, d.discipline_id, d.priority FROM runtime_tasks t JOIN task_details d ON d.id = t.details_id`,
  );
  db.run("INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES ('task_facets', '1')");
}

/** Whether readers may use the mirror on this connection (checked until it holds, then remembered). */
export const facetsUsable = onceTrue(facetsIntact);

/**
 * The normalized generation's mirrors, as our tables keep them (store/own/schema.ts): the facets, and the
 * task rows (taskRows.ts), whose triggers find a details row's or a subsystem's tasks through the facets.
 */
export const NORMALIZED_MIRROR: MirrorHooks = {
  intact: (db) => facetsIntact(db) && taskRowsIntact(db),
  rebuild(db) {
    rebuildFacets(db);
    rebuildTaskRows(db);
  },
};
