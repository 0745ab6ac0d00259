import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { mapSqliteError } from '../db/database.js';
import { ToolError } from '../domain/errors.js';

/**
 * The JSON text okResult made of a result's structuredContent, so that transport/wire.ts splices it into
 * the reply instead of serialising the object again. A symbol key: JSON.stringify and other transports ignore it.
 */
export const RESULT_TEXT = Symbol('ralph-mcp.resultText');

/** A successful call: structuredContent matches the tool's outputSchema; the text is compact JSON of it. */
export function okResult(out: Record<string, unknown>): CallToolResult {
  const text = JSON.stringify(out);
  return { content: [{ type: 'text', text }], structuredContent: out, [RESULT_TEXT]: text };
}

/** A refused or failed call: isError, a stable code, and a message saying what was wrong and what is allowed. */
export function errorResult(err: ToolError): CallToolResult {
  const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  // isError last: the key order of the SDK's CallToolResultSchema, so replies read the same on every path.
  return {
    content: [{ type: 'text', text: `${err.code}: ${err.message}` }],
    structuredContent: { error },
    isError: true,
  };
}

export function toToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  return mapSqliteError(err) ?? new ToolError('internal', `internal error: ${(err as Error)?.message ?? String(err)}`);
}

/** Zod issues → one readable invalid_argument message naming each bad field and what is allowed. */
export function argumentError(error: z.ZodError, allowedFields: readonly string[]): ToolError {
  const parts = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      // Inside a list element or nested object the top-level field list would mislead.
      if (issue.path.length > 0) return `${issue.path.join('.')}: unknown field(s) ${keys}`;
      return `unknown field(s) ${keys}; allowed fields: ${allowedFields.join(', ') || '(none)'}`;
    }
    const path = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
    // zod's wording for the two commonest mistakes, said plainly.
    if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message))
      return `${path}: required (${issue.expected})`;
    if (issue.code === 'too_small' && issue.origin === 'string' && issue.minimum === 1)
      return `${path}: must not be empty`;
    return `${path}: ${issue.message}`;
  });
  return new ToolError('invalid_argument', `invalid arguments: ${parts.join('; ')}`);
}
