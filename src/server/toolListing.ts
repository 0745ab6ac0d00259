import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SessionTool } from '../session/plan.js';

/** JSON Schema for tools/list, without the `$schema` header (it only costs bytes in every session). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest as Tool['inputSchema'];
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
