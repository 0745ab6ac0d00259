import { StartupError } from '../domain/errors.js';

/**
 * Which copies of a successful tool result a client gets. The spec asks for the structuredContent's JSON
 * as a text block too, for clients that read only text; a client known to read structuredContent and drop
 * that text gets the structured copy alone (evidence: docs/startup-and-serving.md). Errors always keep
 * their text, which Claude Code reads. RALPH_MCP_RESULT_TEXT overrides: `always`, `never`, `auto` (by client).
 */
export type ResultCopies = 'both' | 'structured';

export const RESULT_TEXT_ENV = 'RALPH_MCP_RESULT_TEXT';
const MODES = ['auto', 'always', 'never'] as const;

export interface ClientInfo {
  name: string;
  version: string;
}

/** The RALPH_MCP_RESULT_TEXT mode; a value that is none of the modes fails the launch. */
export function resultTextMode(env: NodeJS.ProcessEnv = process.env): (typeof MODES)[number] {
  const raw = env[RESULT_TEXT_ENV];
  if (raw === undefined || raw.trim() === '') return 'auto';
  const mode = raw.trim().toLowerCase();
  if (!(MODES as readonly string[]).includes(mode))
    throw new StartupError(`${RESULT_TEXT_ENV} must be one of ${MODES.join(', ')}, got ${JSON.stringify(raw)}`);
  return mode as (typeof MODES)[number];
}

/** Major, minor and patch of a version string ("2.1.280", "v1.95.0-insider"); null when it has none. */
function versionOf(v: string): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

const atLeast = (v: [number, number, number] | null, min: [number, number, number]): boolean =>
  v !== null && (v[0] !== min[0] ? v[0] > min[0] : v[1] !== min[1] ? v[1] > min[1] : v[2] >= min[2]);

/** What this client gets, by the mode and the client's initialize `clientInfo` (undefined before initialize: both). */
export function resultCopiesFor(client: ClientInfo | undefined, mode: (typeof MODES)[number]): ResultCopies {
  if (mode === 'always') return 'both';
  if (mode === 'never') return 'structured';
  if (!client) return 'both';
  const name = client.name.trim().toLowerCase();
  if (name === 'claude-code') return atLeast(versionOf(client.version), [2, 0, 21]) ? 'structured' : 'both';
  return 'both';
}
