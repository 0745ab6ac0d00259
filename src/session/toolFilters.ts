import { StartupError } from '../domain/errors.js';
import { NO_TOOL_FILTERS, removedByFilters, type ToolFilters, unknownNames } from '../registry/enabled.js';
import { TOOL_NAMES, toolByName } from '../registry/registry.js';

/**
 * --read-only, --tools and --exclude-tools: a launch's ad-hoc narrowing. They compose with the recipe,
 * recipes.json, context.json's disabled_tools, the disciplines' overrides and the schema generation by
 * removal only, so no combination can show a tool any one of them hides (docs/sessions.md).
 */

/** What the launch gave (the lists already split at commas). */
export interface ToolFilterRequest {
  readOnly?: boolean | undefined;
  tools?: readonly string[] | undefined;
  excludeTools?: readonly string[] | undefined;
}

/** The filters a request asks for, checked: an unknown name refuses the launch (a typo must not fail open). */
export function toolFiltersOf(req: ToolFilterRequest): ToolFilters {
  const valid = `valid tools: ${TOOL_NAMES.join(', ')}`;
  for (const [flag, names] of [
    ['--tools', req.tools],
    ['--exclude-tools', req.excludeTools],
  ] as const) {
    const unknown = unknownNames(TOOL_NAMES, names ?? []);
    if (unknown.length) throw new StartupError(`${flag} names unknown tool(s): ${unknown.join(', ')}; ${valid}`);
  }
  // `--tools ""` is more likely a script's empty variable than a wish for no tools at all.
  if (req.tools !== undefined && req.tools.length === 0)
    throw new StartupError(`--tools needs at least one tool name (a comma list); ${valid}`);
  if (!req.readOnly && req.tools === undefined && !req.excludeTools?.length) return NO_TOOL_FILTERS;
  return {
    readOnly: req.readOnly === true,
    only: req.tools === undefined ? null : [...new Set(req.tools)],
    exclude: [...new Set(req.excludeTools ?? [])],
  };
}

export const filtersGiven = (f: ToolFilters): boolean => f.readOnly || f.only !== null || f.exclude.length > 0;

/** The registry names these filters remove, by each tool's own annotations. */
export const removedByToolFilters = (f: ToolFilters): string[] =>
  filtersGiven(f) ? removedByFilters(TOOL_NAMES, f, (n) => toolByName(n)!.annotations.readOnlyHint) : [];

/** What a launch with these filters is warned of, given the tools it ends up serving. */
export function filterWarnings(f: ToolFilters, enabled: readonly string[]): string[] {
  if (!filtersGiven(f)) return [];
  const served = new Set(enabled);
  const out: string[] = [];
  const notServed = (f.only ?? []).filter((n) => !served.has(n));
  if (notServed.length)
    out.push(
      `--tools names ${notServed.join(', ')}, which this session does not serve (its recipe, discipline, schema or other flags remove it): --tools only removes, it never adds a tool`,
    );
  if (enabled.length === 0) out.push(`${filterText(f)} leave this session no tool`);
  return out;
}

/** The command-line flags that ask for these filters again (a client configuration's launch entry). */
export function filterArgs(f: ToolFilters): string[] {
  const args: string[] = [];
  if (f.readOnly) args.push('--read-only');
  if (f.only !== null) args.push('--tools', f.only.join(','));
  if (f.exclude.length) args.push('--exclude-tools', f.exclude.join(','));
  return args;
}

/** The filters in words, as flags ("--read-only --tools a,b"). */
export const filterText = (f: ToolFilters): string => filterArgs(f).join(' ');
