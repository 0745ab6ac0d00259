import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** Every tool's own input and output JSON Schema (jsonSchema of its zod schemas), by name. */
export type PrebuiltListings = Record<string, { input: Tool['inputSchema']; output: Tool['inputSchema'] }>;

/**
 * What the build computed (scripts/serverBuild.mjs defines it in the bundle); absent in tsc's output.
 * Named once, here: esbuild writes the whole table in at each place that names it.
 */
declare const __RALPH_LISTINGS__: PrebuiltListings | undefined;
const PREBUILT: PrebuiltListings | undefined =
  typeof __RALPH_LISTINGS__ !== 'undefined' ? __RALPH_LISTINGS__ : undefined;

/** A tool's schemas as the build computed them, unnarrowed; undefined outside the bundle. */
export const builtAhead = (name: string) => PREBUILT?.[name];
