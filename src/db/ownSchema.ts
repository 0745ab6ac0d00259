import { readFileSync } from 'node:fs';
import { ToolError } from '../errors.js';
import { schemaFile } from '../packageInfo.js';
import type { Db } from './database.js';

/**
 * ralph-mcp's own tables (schema/ralph-mcp.sql, schema/ralph-mcp-search.sql), created on first use so
 * that read-only sessions never write, and versioned in ralph_mcp_meta (user_version is Ralph's).
 */
export const OWN_SCHEMA_VERSION = 1;
/** The change-queue triggers schema/ralph-mcp-search.sql creates. */
const SEARCH_TRIGGERS = 6;

const ready = new WeakMap<Db, { tables?: true; search?: true }>();
const state = (db: Db) => {
  let s = ready.get(db);
  if (!s) ready.set(db, (s = {}));
  return s;
};

/** Creates our tables if missing; refuses a database whose ralph-mcp tables are from a newer version. */
export function ensureOwnTables(db: Db): void {
  const s = state(db);
  if (s.tables) return;
  db.write(() => {
    db.raw.exec(readFileSync(schemaFile('ralph-mcp.sql'), 'utf8'));
    const row = db.get<{ value: string }>("SELECT value FROM ralph_mcp_meta WHERE key = 'schema_version'");
    if (!row) db.run("INSERT INTO ralph_mcp_meta (key, value) VALUES ('schema_version', ?)", String(OWN_SCHEMA_VERSION));
    else if (Number(row.value) > OWN_SCHEMA_VERSION) {
      throw new ToolError('conflict', `this database holds ralph-mcp tables of version ${row.value}, newer than this ralph-mcp (${OWN_SCHEMA_VERSION}); upgrade ralph-mcp`);
    }
  });
  s.tables = true;
}

/**
 * Creates the search index and its change-queue triggers on first search, filling it from every task.
 * Returns true when it was built just now.
 */
export function ensureSearchIndex(db: Db, reindexAll: () => void): boolean {
  const s = state(db);
  if (s.search) return false;
  ensureOwnTables(db);
  let built = false;
  db.write(() => {
    const exists = db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'search_index'");
    // A migration that rebuilds Ralph's tables drops our triggers: changes made meanwhile were never
    // queued, so a missing trigger means the index can no longer be trusted and is rebuilt whole.
    const triggers = db.get<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ralph\\_mcp\\_%' ESCAPE '\\'")!.n;
    db.raw.exec(readFileSync(schemaFile('ralph-mcp-search.sql'), 'utf8'));
    if (!exists || triggers < SEARCH_TRIGGERS) {
      reindexAll();
      db.run("INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES ('search_index', '1')");
      built = true;
    }
  });
  s.search = true;
  return built;
}
