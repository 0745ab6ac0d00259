import { whenProjectWork } from '../server/createServer.js';
import { useBuiltListings, type BuiltListings } from '../session/listing.js';
import type { Generation } from '../store/records.js';
import { useBuiltExpectedSchema, type ExpectedData } from '../store/schema.js';
import { startServing } from './v8Flags.js';

/*
 * Tables the build computed, defined by esbuild (scripts/serverBuild.mjs) or Bun (scripts/bunBuild.mjs);
 * absent in tsc's output. Named only here: the bundler writes a whole table in at each place that names
 * it. (An executable's embedded files: embeddedFiles.ts.)
 */
declare const __RALPH_LISTINGS__: BuiltListings | undefined;
declare const __RALPH_EXPECTED_SCHEMA__: Record<Generation, ExpectedData> | undefined;
/**
 * The same two tables as JSON text, in Bun's builds (scripts/bunBuild.mjs): JavaScriptCore builds 90 KB of
 * object literals at each start more slowly than JSON.parse reads them (0.7 ms a start).
 */
declare const __RALPH_LISTINGS_JSON__: string | undefined;
declare const __RALPH_EXPECTED_SCHEMA_JSON__: string | undefined;

/**
 * Hands the build's tables to the modules that use them, and puts V8 back to its serving defaults at
 * the first request that works on the project. Runs before anything else in a launch.
 */
export function installStartup(): void {
  useBuiltListings(
    typeof __RALPH_LISTINGS_JSON__ !== 'undefined'
      ? (JSON.parse(__RALPH_LISTINGS_JSON__) as BuiltListings)
      : typeof __RALPH_LISTINGS__ !== 'undefined'
        ? __RALPH_LISTINGS__
        : undefined,
  );
  useBuiltExpectedSchema(
    typeof __RALPH_EXPECTED_SCHEMA_JSON__ !== 'undefined'
      ? (JSON.parse(__RALPH_EXPECTED_SCHEMA_JSON__) as Record<Generation, ExpectedData>)
      : typeof __RALPH_EXPECTED_SCHEMA__ !== 'undefined'
        ? __RALPH_EXPECTED_SCHEMA__
        : undefined,
  );
  whenProjectWork(startServing);
}
