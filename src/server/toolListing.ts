import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';
import type { SessionTool } from '../session/plan.js';

/** JSON Schema for tools/list, without the `$schema` header (it only costs bytes in every session). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return dropSafeIntegerBounds(rest) as Tool['inputSchema'];
}

/** zod writes ±2^53-1 bounds on every integer: they tell a model nothing and cost bytes in every session. */
function dropSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = dropSafeIntegerBounds(v);
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
      properties: { code: { type: 'string', enum: [...ERROR_CODES] }, message: { type: 'string' }, details: { type: 'object' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

export function outputSchema(t: SessionTool): Tool['outputSchema'] {
  return { type: 'object', anyOf: [jsonSchema(t.def.output, 'output'), ERROR_RESULT_SCHEMA] } as Tool['outputSchema'];
}

export function toolListing(t: SessionTool): Tool {
  return {
    name: t.def.name,
    title: t.def.title,
    description: t.def.description,
    inputSchema: jsonSchema(t.input, 'input'),
    outputSchema: outputSchema(t),
    annotations: { title: t.def.title, ...t.def.annotations },
  };
}
