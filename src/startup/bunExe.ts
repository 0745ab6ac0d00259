/**
 * The Bun single executable's entry (scripts/build-exe-bun.mjs): the npm bundle's server with its package
 * files embedded, compiled by Bun to bytecode at build time; SQLite through bun:sqlite (db/sqlite.ts).
 */
import './embeddedFiles.js';
import { main } from '../cli/main.js';
import { installStartup } from './buildTables.js';
import { leanStartup } from './v8Flags.js';

leanStartup();
// How this start got its compiled code (logged with "session started").
(globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = 'bun bytecode';
installStartup();
main();
