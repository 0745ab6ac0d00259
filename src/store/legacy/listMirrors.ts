import type { MirrorHooks } from '../own/schema.js';
import type { Db } from '../../db/database.js';
import { onceTrue, ralphMcpDdl, triggerNames } from '../own/ddl.js';

/**
 * The legacy generation keeps a task's lists as JSON arrays in its own row, so "which tasks depend on
 * task N" and "which tasks carry tag T" read every task's list. Two mirrors of ours
 * (schema/ralph-mcp-legacy.sql) make them index lookups: ralph_mcp_task_deps (dependency, task) and
 * ralph_mcp_task_tags (tag, task), each kept in step by triggers of ours whoever writes. They can be
 * trusted once filled whole and while all their triggers exist (as normalized/facets.ts); until then
 * readers scan the lists.
 */

const MIRRORS = [
  {
    triggers: triggerNames(ralphMcpDdl('legacy'), 'ralph_mcp_deps_'),
    prefix: 'ralph\\_mcp\\_deps\\_%',
    key: 'task_deps',
  },
  {
    triggers: triggerNames(ralphMcpDdl('legacy'), 'ralph_mcp_tags_'),
    prefix: 'ralph\\_mcp\\_tags\\_%',
    key: 'task_tags',
  },
] as const;

const triggersPresent = (db: Db, m: (typeof MIRRORS)[number]): boolean =>
  db
    .all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE ? ESCAPE '\\'",
      m.prefix,
    )
    .filter((r) => m.triggers.includes(r.name)).length === m.triggers.length;

/** Before our DDL runs: whether both mirrors are whole (filled, and their triggers there all along). */
export const listMirrorsIntact = (db: Db): boolean =>
  db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_meta'") !== undefined &&
  MIRRORS.every(
    (m) => triggersPresent(db, m) && db.get('SELECT 1 AS x FROM ralph_mcp_meta WHERE key = ?', m.key) !== undefined,
  );

/** After our DDL ran (triggers in place), inside its transaction: fill both mirrors whole. */
export function rebuildListMirrors(db: Db): void {
  db.run('DELETE FROM ralph_mcp_task_deps');
  db.run(
    `INSERT OR IGNORE INTO ralph_mcp_task_deps (depends_on, task_id)
     SELECT CAST(d.value AS INTEGER), t.id FROM tasks t, json_each(CASE WHEN json_valid(t.depends_on) THEN t.depends_on ELSE '[]' END) d
     WHERE d.type = 'integer' OR (d.type = 'text' AND d.value <> '' AND d.value NOT GLOB '*[^0-9]*')`,
  );
  db.run('DELETE FROM ralph_mcp_task_tags');
  db.run(
    `INSERT OR IGNORE INTO ralph_mcp_task_tags (tag, task_id)
     SELECT g.value, t.id FROM tasks t, json_each(CASE WHEN json_valid(t.tags) THEN t.tags ELSE '[]' END) g WHERE g.type = 'text'`,
  );
  for (const m of MIRRORS) db.run('INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES (?, ?)', m.key, '1');
}

/** Whether readers may use the mirrors on this connection (checked until they hold, then remembered). */
export const listMirrorsUsable = onceTrue(listMirrorsIntact);

/** The legacy generation's mirror, as our tables keep it (store/own/schema.ts). */
export const LEGACY_MIRROR: MirrorHooks = { intact: listMirrorsIntact, rebuild: rebuildListMirrors };
