import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ERROR_CODES } from '../domain/errors.js';
import type { Recipe } from '../registry/recipes.js';
import type { AnyTool } from '../toolkit/tool.js';
import { isNarrowed, narrowingKey, narrowingOf, narrowInput, type Anchor } from './narrowing.js';
import type { SessionTool } from './plan.js';

/**
 * JSON Schema for tools/list, without what only a validator needs (size bounds, `$schema`,
 * `additionalProperties: false`, a record's string `propertyNames`): every session pays for these bytes on
 * every model turn. The zod schema still enforces them; where a bound matters to a caller, its
 * description states it. What clients need to render and accept a schema stays, in the form they take
 * without portability warnings (docs/schemas.md): `type` beside every `enum`, one `type` per schema.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return compact(rest) as Tool['inputSchema'];
}

const VALIDATOR_ONLY = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);

/** `{type: 'string'}` once its validator-only bounds are gone. */
const isPlainString = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && JSON.stringify(compact(v)) === '{"type":"string"}';

/** `{}`: the schema every value satisfies, which is what an absent `items` or `additionalProperties` means. */
const isEmptySchema = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (VALIDATOR_ONLY.has(k) && typeof v === 'number') continue;
    if (k === 'additionalProperties' && v === false) continue;
    // Every key of a JSON object is a string: `propertyNames: {type: string}` (a record's) says nothing.
    if (k === 'propertyNames' && isPlainString(v)) continue;
    if ((k === 'items' || k === 'additionalProperties') && isEmptySchema(v)) continue;
    // zod writes a nullable scalar as `type: [t, "null"]`, which single-type dialects (Gemini's) reject
    // and the MCP Inspector warns about: the same union as `anyOf` branches of one type each.
    if (k === 'type' && Array.isArray(v)) out.anyOf = v.map((type: unknown) => ({ type }));
    else out[k] = compact(v);
  }
  return out;
}

/**
 * The structured result of a refused call, which every outputSchema allows beside the success shape:
 * the TypeScript SDK client (1.x, typescript-sdk#1943) validates even an isError result's
 * structuredContent, and would turn our error into an opaque -32602.
 */
const ERROR_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: [...ERROR_CODES] },
        message: { type: 'string' },
        details: { type: 'object' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

/**
 * Every tool's JSON Schemas as the build computed them (the start-up edge installs the table; absent
 * outside the bundle, where they are computed on first use): `input` and `output` unnarrowed, and
 * `narrowed` the inputs of every narrowing a built-in recipe gives, by narrowingKey.
 */
export interface BuiltListings {
  tools: Record<string, { input: Tool['inputSchema']; output: Tool['inputSchema'] }>;
  narrowed: Record<string, Tool['inputSchema']>;
}
let built: BuiltListings | undefined;
export const useBuiltListings = (table: BuiltListings | undefined): void => {
  built = table;
};

/** A tool's argument names, from the built listing when there is one (no zod schema made). */
export const toolArgs = (def: AnyTool): string[] =>
  Object.keys(built?.tools[def.name]?.input.properties ?? (def.input as z.ZodObject).shape);

export function outputSchema(t: SessionTool): Tool['outputSchema'] {
  return {
    type: 'object',
    anyOf: [built?.tools[t.def.name]?.output ?? jsonSchema(t.def.output, 'output'), ERROR_RESULT_SCHEMA],
  } as Tool['outputSchema'];
}

/** The session's input schema: the tool's own, or its narrowed one, each note first in its argument. */
function inputSchema(t: SessionTool): Tool['inputSchema'] {
  const { def, narrowing } = t;
  const schema = !isNarrowed(narrowing)
    ? (built?.tools[def.name]?.input ?? jsonSchema(def.input, 'input'))
    : (built?.narrowed[narrowingKey(def.name, narrowing)] ?? jsonSchema(t.input, 'input'));
  const notes = Object.entries(t.notes);
  if (notes.length === 0) return schema;
  const properties = { ...(schema.properties as Record<string, Record<string, unknown>>) };
  for (const [arg, note] of notes) {
    const { description: _d, ...rest } = properties[arg] ?? {};
    properties[arg] = { description: note, ...rest };
  }
  return { ...schema, properties };
}

export function toolListing(t: SessionTool): Tool {
  return {
    name: t.def.name,
    title: t.def.title,
    description: t.description,
    inputSchema: inputSchema(t),
    outputSchema: outputSchema(t),
    annotations: { title: t.def.title, ...t.def.annotations },
  };
}

/** Every anchor kind a session can have (what narrowing depends on, not the id or name). */
const ANCHORS: Anchor[] = [null, { kind: 'task', id: 0 }, { kind: 'claims' }, { kind: 'feature', name: '' }];

/** The build's table (scripts/serverBuild.mjs): what sessions of the built-in recipes would compute. */
export function buildListings(tools: readonly AnyTool[], recipes: readonly Recipe[]): BuiltListings {
  const out: BuiltListings = { tools: {}, narrowed: {} };
  for (const t of tools)
    out.tools[t.name] = { input: jsonSchema(t.input, 'input'), output: jsonSchema(t.output, 'output') };
  for (const recipe of [null, ...recipes]) {
    for (const t of tools) {
      if (recipe && !recipe.allow.includes(t.name)) continue;
      for (const anchor of ANCHORS) {
        const n = narrowingOf(t, recipe, Object.keys(out.tools[t.name]!.input.properties ?? {}), anchor);
        const key = narrowingKey(t.name, n);
        if (isNarrowed(n) && !(key in out.narrowed))
          out.narrowed[key] = jsonSchema(narrowInput(t.input as z.ZodObject, n), 'input');
      }
    }
  }
  return out;
}
