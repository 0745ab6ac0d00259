import { schemaText } from '../../domain/packageInfo.js';
import type { Generation } from '../records.js';
import type { Db } from '../../db/database.js';

/** The DDL of our own objects, read from the package's schema/ folder (file names are constants). */
export const sqlOf = (file: string): string => schemaText(file);
/** Our own objects on one generation (schema/ralph-mcp-<generation>.sql), without the common tables. */
export const ralphMcpDdl = (generation: Generation): string => sqlOf(`ralph-mcp-${generation}.sql`);
export const ownDdl = (generation: Generation): string => `${sqlOf('ralph-mcp.sql')}\n${ralphMcpDdl(generation)}`;
/** The search index: what both generations keep (schema/ralph-mcp-search.sql), then the generation's own part. */
export const searchDdl = (generation: Generation): string =>
  `${sqlOf('ralph-mcp-search.sql')}\n${sqlOf(`ralph-mcp-search-${generation}.sql`)}`;
/** The triggers a DDL text creates, by name. */
export const triggerNames = (ddl: string, prefix = ''): string[] =>
  [...ddl.matchAll(/CREATE TRIGGER IF NOT EXISTS (\w+)/g)].map((m) => m[1]!).filter((n) => n.startsWith(prefix));
/** The triggers a DDL text drops (older versions of ours), by name. */
export const droppedTriggerNames = (ddl: string): string[] =>
  [...ddl.matchAll(/DROP TRIGGER IF EXISTS (\w+)/g)].map((m) => m[1]!);
/** Every object (table, index, trigger) a DDL text creates, by name. */
export const objectNames = (ddl: string): string[] =>
  [...ddl.matchAll(/CREATE (?:VIRTUAL TABLE|TABLE|INDEX|TRIGGER) IF NOT EXISTS (\w+)/g)].map((m) => m[1]!);

/**
 * A per-connection check that, once true, stays true while the connection is open (a mirror of ours
 * found whole): asked until it holds, then remembered.
 */
export function onceTrue(check: (db: Db) => boolean): (db: Db) => boolean {
  const held = new WeakSet<Db>();
  return (db) => {
    if (held.has(db)) return true;
    const ok = check(db);
    if (ok) held.add(db);
    return ok;
  };
}
