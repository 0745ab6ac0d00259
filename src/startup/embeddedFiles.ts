import { useEmbeddedFiles } from '../domain/packageInfo.js';

/**
 * The package files a single executable's build embeds (scripts/build-exe.mjs, scripts/build-exe-bun.mjs);
 * absent elsewhere. Named only here, like the tables of buildTables.ts.
 */
declare const __RALPH_EMBEDDED__: Record<string, string> | undefined;

// Installed as this module is evaluated: an executable's entry imports it before anything else, since
// modules evaluated before the entry's own code read package files at their top level (the DDL a store
// module takes trigger names from), and an ES module's imports are evaluated before its body.
useEmbeddedFiles(typeof __RALPH_EMBEDDED__ !== 'undefined' ? __RALPH_EMBEDDED__ : undefined);
