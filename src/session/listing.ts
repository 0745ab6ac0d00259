import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ERROR_CODES } from '../domain/errors.js';
import type { Narrowing, SessionTool } from './plan.js';
import { builtAhead, type PrebuiltListings } from './builtListings.js';

/**
 * JSON Schema for tools/list. Every session pays for these bytes on every model turn, so the listing
 * keeps what tells a model how to call a tool (types, enums, required, descriptions, patterns) and
 * leaves out what only a validator needs: size bounds (maxLength, maxItems, minimum, …), `$schema`,
 * `additionalProperties: false`, and `type: string` beside a string enum. The server still enforces all of them: the
 * zod schema validates each
 * call and a violation is an `invalid_argument` naming the limit (limits are listed in the README).
 * Where a bound matters to a caller (a page size), the parameter's description states it.
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

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (VALIDATOR_ONLY.has(k) && typeof v === 'number') continue;
    if (k === 'additionalProperties' && v === false) continue;
    // An enum of strings says the type by itself.
    if (k === 'type' && v === 'string' && Array.isArray((node as { enum?: unknown }).enum)) continue;
    out[k] = compact(v);
  }
  return out;
}

/**
 * The structured result of a refused call: `{ error: { code, message, details? } }`.
 *
 * Every outputSchema we advertise is "success shape OR this". The result of an isError call is not
 * meant to be checked against outputSchema, but the TypeScript SDK client (1.x, typescript-sdk#1943)
 * validates any structuredContent it gets, and would turn our error into an opaque -32602 for the
 * agent. Declaring the error branch keeps our errors readable in every client, and is accurate.
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

export function outputSchema(t: SessionTool): Tool['outputSchema'] {
  return {
    type: 'object',
    anyOf: [builtAhead(t.def.name)?.output ?? jsonSchema(t.def.output, 'output'), ERROR_RESULT_SCHEMA],
  } as Tool['outputSchema'];
}

/** The build's table: each tool's JSON Schemas, as the session's listing would compute them unnarrowed. */
export function prebuildListings(
  tools: readonly { name: string; input: z.ZodType; output: z.ZodType }[],
): PrebuiltListings {
  return Object.fromEntries(
    tools.map((t) => [t.name, { input: jsonSchema(t.input, 'input'), output: jsonSchema(t.output, 'output') }]),
  );
}

/**
 * A session's input schema from the tool's prebuilt one, narrowed as plan.ts narrowed the zod schema
 * (the same JSON zod gives, checked by test/listings.test.ts): the recipe's fields in its order, then
 * each argument made optional, its note first in place of its description.
 */
export function narrowedInput(base: Tool['inputSchema'], n: Narrowing): Tool['inputSchema'] {
  const props = (base.properties ?? {}) as Record<string, Record<string, unknown>>;
  let names = Object.keys(props);
  let required = (base.required ?? []) as string[];
  if (n.keep) {
    names = n.keep.filter((k) => k in props);
    required = names.filter((k) => required.includes(k));
  }
  const properties: Record<string, unknown> = {};
  for (const k of names) properties[k] = props[k];
  for (const { arg, note } of n.optional) {
    const { description: _d, ...rest } = props[arg] ?? {};
    properties[arg] = { description: note, ...rest };
    required = required.filter((k) => k !== arg);
  }
  const { properties: _p, required: _r, ...head } = base;
  return { ...head, properties, ...(required.length > 0 ? { required } : {}) } as Tool['inputSchema'];
}

function inputSchema(t: SessionTool): Tool['inputSchema'] {
  const pre = builtAhead(t.def.name);
  return pre ? narrowedInput(pre.input, t.narrowing) : jsonSchema(t.input, 'input');
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
