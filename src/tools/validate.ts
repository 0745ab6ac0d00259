import type { Db } from '../db/database.js';
import { numberArray } from '../db/json.js';
import { findCycle } from '../domain/dependencies.js';
import { checkProjectPath } from '../domain/paths.js';
import { ACRONYM_RE, MAX_CONTEXT_FILES, NAME_RE, deriveAcronym } from '../domain/rules.js';
import { conflict, invalid } from '../errors.js';
import type { ToolContext } from '../registry/types.js';

/**
 * Checks shared by several tools: Ralph's rules that need the database (or the project root) to decide.
 * Each throws a ToolError saying what is wrong and what is allowed, and returns the value to store.
 */

/** depends_on may only name existing tasks, never the task itself, and never close a cycle. */
export function checkDependsOn(db: Db, id: number | null, deps: readonly number[]): number[] {
  const unique = [...new Set(deps)];
  if (id !== null && unique.includes(id)) throw invalid(`task ${id} cannot depend on itself`);
  const missing = unique.filter((d) => !db.get('SELECT 1 AS x FROM tasks WHERE id = ?', d));
  if (missing.length > 0) throw invalid(`depends_on names tasks that do not exist: ${missing.join(', ')}`, { missing });
  if (id !== null) {
    const depsOf = (t: number) => numberArray(db.get<{ d: string }>('SELECT depends_on AS d FROM tasks WHERE id = ?', t)?.d);
    const cycle = findCycle(id, unique, depsOf);
    if (cycle) throw invalid(`depends_on would create a dependency cycle: ${cycle.join(' → ')}`, { cycle });
  }
  return unique;
}

export function checkContextFiles(ctx: ToolContext, files: readonly string[], field = 'context_files'): string[] {
  const out = [...new Set(files.map((f) => checkProjectPath(ctx.project.root, f, field)))];
  if (out.length > MAX_CONTEXT_FILES) throw invalid(`${field} may hold at most ${MAX_CONTEXT_FILES} paths (got ${out.length})`);
  return out;
}

export function checkAcronym(db: Db, table: 'features' | 'disciplines', value: string, self: string | null): string {
  if (!ACRONYM_RE.test(value)) throw invalid(`acronym ${JSON.stringify(value)} must be exactly 4 characters A-Z or 0-9, e.g. "AUTH"`);
  const sql = table === 'features' ? 'SELECT name FROM features WHERE acronym = ?' : 'SELECT name FROM disciplines WHERE acronym = ?';
  const owner = db.get<{ name: string }>(sql, value);
  if (owner && owner.name !== self) throw conflict(`acronym ${value} is already used by ${table === 'features' ? 'feature' : 'discipline'} ${owner.name}; choose another, or omit acronym to get a free one`);
  return value;
}

export function freeAcronym(db: Db, table: 'features' | 'disciplines', displayName: string): string {
  const sql = table === 'features' ? 'SELECT acronym FROM features' : 'SELECT acronym FROM disciplines';
  return deriveAcronym(displayName, new Set(db.all<{ acronym: string }>(sql).map((r) => r.acronym)));
}

export function checkNewName(kind: string, value: string): string {
  if (!NAME_RE.test(value)) throw invalid(`${kind} name ${JSON.stringify(value)} must be lower-case letters and digits joined by '-' or '_', e.g. "user-auth"`);
  return value;
}
