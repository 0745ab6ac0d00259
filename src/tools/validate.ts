import { findCycle } from '../domain/dependencies.js';
import { checkProjectPath } from '../domain/paths.js';
import { ACRONYM_RE, MAX_CONTEXT_FILES, NAME_RE, deriveAcronym } from '../domain/rules.js';
import { conflict, invalid } from '../domain/errors.js';
import type { ToolContext } from '../toolkit/context.js';
import type { Named, RalphStore } from '../store/store.js';

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
