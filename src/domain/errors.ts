/**
 * The two kinds of failure: a StartupError stops a wrong launch before any MCP traffic (fail closed,
 * never "serve everything"); a ToolError becomes an `isError` result whose stable `code` is part of our
 * contract with agents and Ralph.
 */

export const ERROR_CODES = [
  'invalid_argument', // the arguments break a rule; the message says which and what is allowed
  'not_found', // a named row (task, feature, discipline, comment) does not exist
  'conflict', // the write would break an invariant (duplicate, cycle, referenced row, wrong state)
  'out_of_scope', // the session's task/discipline scope forbids this target
  'busy', // the database stayed locked past the busy timeout; retry later
  'io_error', // the database or a state file could not be read or written (disk full, read-only, I/O error)
  'unavailable', // Ralph's app (signals forwarded to its API) could not be reached or failed; retry later
  'internal', // a bug: logged with its stack
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class ToolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

export const notFound = (what: string, key: string | number, hint?: string): ToolError =>
  new ToolError('not_found', `${what} ${JSON.stringify(key)} does not exist${hint ? `; ${hint}` : ''}`);

export const invalid = (message: string, details?: Record<string, unknown>): ToolError =>
  new ToolError('invalid_argument', message, details);

export const conflict = (message: string, details?: Record<string, unknown>): ToolError =>
  new ToolError('conflict', message, details);
