import type { Db } from '../../db/database.js';
import { ToolError } from '../../domain/errors.js';
import { droppedTriggerNames, objectNames, ownDdl, searchDdl, triggerNames } from './ddl.js';
import type { Generation } from '../records.js';

/**
 * ralph-mcp's own tables, created on first use so that read-only sessions never write, and versioned in
 * ralph_mcp_meta (user_version is Ralph's). schema/ralph-mcp.sql is common to both generations,
 * ralph-mcp-<generation>.sql holds what differs, and ralph-mcp-search-<generation>.sql is made on first search.
 */
export const OWN_SCHEMA_VERSION = 1;

/**
 * The mirror our triggers keep of Ralph's rows (normalized: task facets; legacy: dependencies and tags),
 * given by each generation: our tables are made with it, and it is rebuilt when it was not kept whole.
 */
export interface MirrorHooks {
  intact(db: Db): boolean;
  rebuild(db: Db): void;
}

interface OwnState {
  tables?: true;
  search?: true;
  /** The search index was built inside a transaction not yet known to have committed. */
  searchUncommitted?: true;
}

const ready = new WeakMap<Db, OwnState>();
const state = (db: Db) => {
  let s = ready.get(db);
  if (!s) {
    s = {};
    ready.set(db, s);
  }
  return s;
};

/** True once this connection has made sure our tables exist. */
export const ownTablesReady = (db: Db): boolean => state(db).tables === true;

/** Creates our tables if missing; refuses a database whose ralph-mcp tables are from a newer version. */
export function ensureOwnTables(db: Db, generation: Generation, mirror: MirrorHooks): void {
  const s = state(db);
  if (s.tables) return;
  // Most opens find everything in place: say so from one read, without taking the write lock.
  if (ownObjectsCurrent(db, generation, mirror)) {
    s.tables = true;
    return;
  }
  db.write(() => {
    // Checked before the DDL recreates any missing trigger: rows changed without it were never mirrored.
    const mirrorWhole = mirror.intact(db);
    db.raw.exec(ownDdl(generation));
    if (!mirrorWhole) mirror.rebuild(db);
    const row = db.get<{ value: string }>("SELECT value FROM ralph_mcp_meta WHERE key = 'schema_version'");
    if (!row)
      db.run("INSERT INTO ralph_mcp_meta (key, value) VALUES ('schema_version', ?)", String(OWN_SCHEMA_VERSION));
    else if (Number(row.value) > OWN_SCHEMA_VERSION) {
      throw new ToolError(
        'conflict',
        `this database holds ralph-mcp tables of version ${row.value}, newer than this ralph-mcp (${OWN_SCHEMA_VERSION}); upgrade ralph-mcp`,
      );
    }
  });
  s.tables = true;
}

const expectedObjects = new Map<Generation, { made: string[]; dropped: string[] }>();

/** Whether every object a DDL creates is in the database and none it drops (the names read once per generation). */
function ddlObjectsPresent(
  db: Db,
  memo: Map<Generation, { made: string[]; dropped: string[] }>,
  generation: Generation,
  ddlOf: (generation: Generation) => string,
): boolean {
  let names = memo.get(generation);
  if (!names) {
    const ddl = ddlOf(generation);
    names = { made: objectNames(ddl), dropped: droppedTriggerNames(ddl) };
    memo.set(generation, names);
  }
  const present = new Set(
    db
      .all<{ name: string }>("SELECT name FROM sqlite_master WHERE name LIKE 'ralph\\_mcp\\_%' ESCAPE '\\'")
      .map((r) => r.name),
  );
  return names.made.every((n) => present.has(n)) && !names.dropped.some((n) => present.has(n));
}

/**
 * Whether every object our DDL creates exists and none it drops does (an older ralph-mcp still running
 * beside us puts its own triggers back), at our version, with a whole mirror.
 */
function ownObjectsCurrent(db: Db, generation: Generation, mirror: MirrorHooks): boolean {
  if (!ddlObjectsPresent(db, expectedObjects, generation, ownDdl)) return false;
  if (
    db.get<{ value: string }>("SELECT value FROM ralph_mcp_meta WHERE key = 'schema_version'")?.value !==
    String(OWN_SCHEMA_VERSION)
  )
    return false;
  return mirror.intact(db);
}

const expectedSearchObjects = new Map<Generation, { made: string[]; dropped: string[] }>();

/**
 * Whether the search index is whole as ensureSearchIndex would leave it: every object its DDL creates and
 * none it drops, built, its title keys filled, and FTS5's crisis merge set. Its DDL is then a no-op.
 */
function searchIndexCurrent(db: Db, generation: Generation): boolean {
  if (!ddlObjectsPresent(db, expectedSearchObjects, generation, searchDdl)) return false;
  return (
    db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'search_index'") !== undefined &&
    db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'title_keys'") !== undefined &&
    db.get("SELECT 1 AS x FROM ralph_mcp_search_config WHERE k = 'crisismerge' AND v = 200") !== undefined
  );
}

/** Our tables' version, or undefined before the first write made them. */
export function ownSchemaVersion(db: Db): string | undefined {
  if (!db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'ralph_mcp_meta'")) return undefined;
  return db.get<{ value: string }>("SELECT value FROM ralph_mcp_meta WHERE key = 'schema_version'")?.value ?? '?';
}

/**
 * Creates the search index and its change-queue triggers on first search, filling it from every task.
 * Returns true when it was built just now.
 */
const MERGE_CONFIG = "INSERT INTO ralph_mcp_search (ralph_mcp_search, rank) VALUES ('crisismerge', 200)";

export function ensureSearchIndex(
  db: Db,
  generation: Generation,
  mirror: MirrorHooks,
  rebuild: { all: () => void; titleKeys: () => void },
): boolean {
  const s = state(db);
  if (s.search) return false;
  ensureOwnTables(db, generation, mirror);
  let built = false;
  // Inside a caller's transaction (a create looking for duplicate titles) what is built here may still
  // be rolled back with it: only an index known to be committed is remembered as there.
  const nested = db.raw.inTransaction;
  // Most opens find it whole: say so from reads alone, without the write lock (and without running its
  // DDL, ~1 ms on the normalized generation's ten triggers).
  if (searchIndexCurrent(db, generation)) {
    if (!nested || !s.searchUncommitted) s.search = true;
    return false;
  }
  db.write(() => {
    const exists = db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'search_index'");
    // A migration that rebuilds Ralph's tables drops our triggers: changes made meanwhile were never
    // queued, so a missing trigger means the index can no longer be trusted and is rebuilt whole.
    // The change-queue triggers, by name from the DDL itself (no list to keep in step).
    const wanted = triggerNames(searchDdl(generation));
    const present = db
      .all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger'")
      .filter((r) => wanted.includes(r.name)).length;
    db.raw.exec(searchDdl(generation));
    if (!exists || present < wanted.length) {
      rebuild.all();
      db.run("INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES ('search_index', '1')");
      built = true;
    } else if (!db.get("SELECT 1 AS x FROM ralph_mcp_meta WHERE key = 'title_keys'")) {
      // An index built before the title keys existed: only they are filled.
      rebuild.titleKeys();
      built = true;
    }
    // FTS5's incremental merging (automerge) keeps up; its crisis merge of a level's 16 segments at once
    // stalled a catch-up slice for up to 0.5 s at 100,000 tasks (docs/storage.md), so it waits for 200.
    if (!db.get("SELECT 1 AS x FROM ralph_mcp_search_config WHERE k = 'crisismerge' AND v = 200"))
      db.raw.exec(MERGE_CONFIG);
  });
  if (!nested) s.search = true;
  else if (built) {
    // Remembered only once a later check finds it outside an uncommitted build: the caller's
    // transaction may still roll the build back. Any commit ends that doubt (the next check re-reads).
    s.searchUncommitted = true;
    const off = db.onCommit(() => {
      delete s.searchUncommitted;
      off();
    });
  } else if (!s.searchUncommitted) {
    // Found whole and not built by this connection's open transaction: it was there before it began.
    s.search = true;
  }
  return built;
}
