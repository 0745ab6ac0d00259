import { readFileSync } from 'node:fs';
import { schemaFile } from '../../packageInfo.js';
import type { Generation } from '../records.js';

/** The DDL of our own objects, read from the package's schema/ folder (file names are constants). */
export const sqlOf = (file: string): string => readFileSync(schemaFile(file), 'utf8');
/** Our own objects on one generation (schema/ralph-mcp-<generation>.sql), without the common tables. */
export const ralphMcpDdl = (generation: Generation): string => sqlOf(`ralph-mcp-${generation}.sql`);
export const ownDdl = (generation: Generation): string => `${sqlOf('ralph-mcp.sql')}\n${ralphMcpDdl(generation)}`;
export const searchDdl = (generation: Generation): string => sqlOf(`ralph-mcp-search-${generation}.sql`);
/** The triggers a DDL text creates, by name. */
export const triggerNames = (ddl: string, prefix = ''): string[] =>
  [...ddl.matchAll(/CREATE TRIGGER IF NOT EXISTS (\w+)/g)].map((m) => m[1]!).filter((n) => n.startsWith(prefix));
/** Every object (table, index, trigger) a DDL text creates, by name. */
export const objectNames = (ddl: string): string[] =>
  [...ddl.matchAll(/CREATE (?:VIRTUAL TABLE|TABLE|INDEX|TRIGGER) IF NOT EXISTS (\w+)/g)].map((m) => m[1]!);
