import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
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

export function toolListing(t: SessionTool): Tool {
  return {
    name: t.def.name,
    title: t.def.title,
    description: t.def.description,
    inputSchema: jsonSchema(t.input, 'input'),
    outputSchema: jsonSchema(t.def.output, 'output') as Tool['outputSchema'],
    annotations: { title: t.def.title, ...t.def.annotations },
  };
}
