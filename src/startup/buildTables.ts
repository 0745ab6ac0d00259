import { whenProjectWork } from '../server/projectWork.js';
import { useBuiltListings, type BuiltListings } from '../session/listing.js';
import type { Generation } from '../store/records.js';
import { useBuiltExpectedSchema, type ExpectedData } from '../store/schema.js';
import { startServing } from './v8Flags.js';

/*
 * Tables the build computed, defined by esbuild (scripts/serverBuild.mjs) or Bun (scripts/bunBuild.mjs);
 * absent in tsc's output. Named only here: the bundler writes a whole table in at each place that names
 * it. (An executable's embedded files: embeddedFiles.ts.)
 */
declare const __RALPH_LISTINGS__: PackedListings | undefined;
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
  // Each schema of the listings is written in as its JSON text, in both builds (see unpacked, below).
  useBuiltListings(
    typeof __RALPH_LISTINGS_JSON__ !== 'undefined'
      ? unpacked(JSON.parse(__RALPH_LISTINGS_JSON__) as PackedListings)
      : typeof __RALPH_LISTINGS__ !== 'undefined'
        ? unpacked(__RALPH_LISTINGS__)
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

/** The listings as the build writes them in: each JSON Schema as its JSON text (scripts/serverBuild.mjs). */
interface PackedListings {
  tools: Record<string, { input: string; output: string }>;
  narrowed: Record<string, string>;
}

/**
 * The listings, each schema parsed the first time a session reads it: a start parses its own tools'
 * schemas, not the ~60 tools' and their narrowed variants (evaluating the table as objects was ~1 ms of
 * every start, and heap the session kept).
 */
function unpacked(packed: PackedListings): BuiltListings {
  const tools: BuiltListings['tools'] = {};
  for (const [name, texts] of Object.entries(packed.tools)) {
    let input: BuiltListings['tools'][string]['input'] | undefined;
    let output: BuiltListings['tools'][string]['output'] | undefined;
    const entry = {
      get input() {
        input ??= JSON.parse(texts.input);
        return input!;
      },
      get output() {
        output ??= JSON.parse(texts.output);
        return output!;
      },
    };
    tools[name] = entry;
  }
  const narrowed: BuiltListings['narrowed'] = {};
  for (const [key, text] of Object.entries(packed.narrowed)) {
    let schema: BuiltListings['narrowed'][string] | undefined;
    Object.defineProperty(narrowed, key, {
      enumerable: true,
      get: () => (schema ??= JSON.parse(text)),
    });
  }
  return { tools, narrowed };
}
