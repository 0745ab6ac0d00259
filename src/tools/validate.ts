import { findCycle } from '../domain/dependencies.js';
import { checkProjectPath } from '../domain/paths.js';
import { ACRONYM_RE, MAX_CONTEXT_FILES, NAME_RE, deriveAcronym } from '../domain/rules.js';
import { conflict, invalid } from '../domain/errors.js';
import type { ToolContext } from '../toolkit/context.js';
import type { McpServerInsert, Named, RalphStore } from '../store/store.js';

/**
 * Checks shared by several tools: Ralph's rules that need the database (or the project root) to decide.
 * Each throws a ToolError saying what is wrong and what is allowed, and returns the value to store.
 */

/** depends_on may only name existing tasks, never the task itself, and never close a cycle. */
export function checkDependsOn(store: RalphStore, id: number | null, deps: readonly number[]): number[] {
  const unique = [...new Set(deps)];
  if (id !== null && unique.includes(id)) throw invalid(`task ${id} cannot depend on itself`);
  const missing = unique.filter((d) => !store.tasks.taskExists(d));
  if (missing.length > 0) throw invalid(`depends_on names tasks that do not exist: ${missing.join(', ')}`, { missing });
  if (id !== null) {
    const cycle = findCycle(id, unique, (t) => store.tasks.dependenciesOf(t));
    if (cycle) throw invalid(`depends_on would create a dependency cycle: ${cycle.join(' → ')}`, { cycle });
  }
  return unique;
}

export function checkContextFiles(ctx: ToolContext, files: readonly string[], field = 'context_files'): string[] {
  const out = [...new Set(files.map((f) => checkProjectPath(ctx.project.root, f, field)))];
  if (out.length > MAX_CONTEXT_FILES)
    throw invalid(`${field} may hold at most ${MAX_CONTEXT_FILES} paths (got ${out.length})`);
  return out;
}

const nounOf = (store: RalphStore, kind: Named) => (kind === 'features' ? store.featureNoun : 'discipline');

export function checkAcronym(store: RalphStore, kind: Named, value: string, self: string | null): string {
  if (!ACRONYM_RE.test(value))
    throw invalid(`acronym ${JSON.stringify(value)} must be exactly 4 characters A-Z or 0-9, e.g. "AUTH"`);
  const owner = store.names.acronymOwner(kind, value);
  if (owner !== undefined && owner !== self)
    throw conflict(
      `acronym ${value} is already used by ${nounOf(store, kind)} ${owner}; choose another, or omit acronym to get a free one`,
    );
  return value;
}

export function freeAcronym(store: RalphStore, kind: Named, displayName: string): string {
  return deriveAcronym(displayName, new Set(store.names.acronyms(kind)));
}

export function checkNewName(kind: string, value: string): string {
  if (!NAME_RE.test(value))
    throw invalid(
      `${kind} name ${JSON.stringify(value)} must be lower-case letters and digits joined by '-' or '_', e.g. "user-auth"`,
    );
  return value;
}

/** The names a launch's own entries take in a client configuration (`ralph-mcp config`). */
const RESERVED_SERVERS = ['ralph', 'ralph-signals'];
const SERVER_NAME_RE = /^[\w.-]{1,64}$/;
const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MCP_ENV_MAX = 100;

/**
 * A discipline's own MCP servers as Ralph launches them beside a task session: each a unique name (not
 * one of ralph-mcp's own), a command, args and env. The same rules `ralph-mcp config` reads them by.
 */
export function checkMcpServers(servers: readonly McpServerInsert[]): McpServerInsert[] {
  const seen = new Set<string>();
  return servers.map((s, i) => {
    const at = `mcp_servers[${i}]`;
    if (!SERVER_NAME_RE.test(s.name))
      throw invalid(`${at}.name ${JSON.stringify(s.name)} must be 1-64 letters, digits, '_', '.' or '-'`);
    if (RESERVED_SERVERS.includes(s.name))
      throw invalid(`${at}.name ${JSON.stringify(s.name)} is reserved for ralph-mcp itself; choose another name`);
    if (seen.has(s.name)) throw invalid(`${at}.name ${JSON.stringify(s.name)} is given twice; names must be unique`);
    seen.add(s.name);
    if (s.command.trim() === '') throw invalid(`${at}.command is empty; give the program to run, e.g. "npx"`);
    const env = s.env ?? {};
    if (Object.keys(env).length > MCP_ENV_MAX)
      throw invalid(`${at}.env has ${Object.keys(env).length} variables (at most ${MCP_ENV_MAX})`);
    const bad = Object.keys(env).find((k) => !ENV_KEY_RE.test(k));
    if (bad !== undefined)
      throw invalid(
        `${at}.env key ${JSON.stringify(bad)} is not a variable name (letters, digits, '_'; no digit first)`,
      );
    return { name: s.name, command: s.command, args: [...(s.args ?? [])], env: { ...env } };
  });
}
