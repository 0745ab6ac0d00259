import type { MirrorHooks } from '../own/schema.js';
import type { Db } from '../../db/database.js';
import { onceTrue, ralphMcpDdl, triggerNames } from '../own/ddl.js';

/**
 * Mirrors of the legacy JSON lists (ralph_mcp_task_deps, ralph_mcp_task_tags), kept by our triggers, so
 * "which tasks depend on N" or "carry tag T" is an index lookup rather than a read of every task's list.
 * They are trusted only once filled whole and while all their triggers exist; until then readers scan the lists.
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
