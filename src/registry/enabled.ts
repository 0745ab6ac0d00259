/**
 * THE one function that decides what a session may see: registry ∩ recipe.allow − additional_disabled,
 * in the registry's order so tools/list is deterministic. `allow === null` (no recipe) is the full suite.
 */
export interface ResolvedTools {
  enabled: string[];
  disabled: string[];
}

export function resolveTools(
  registry: readonly string[],
  allow: readonly string[] | null,
  additionalDisabled: readonly string[] = [],
): ResolvedTools {
  const allowed = allow === null ? null : new Set(allow);
  const removed = new Set(additionalDisabled);
  const enabled: string[] = [];
  const disabled: string[] = [];
  for (const name of registry) {
    if ((allowed === null || allowed.has(name)) && !removed.has(name)) enabled.push(name);
    else disabled.push(name);
  }
  return { enabled, disabled };
}

/** Names in `names` that the registry does not know: a typo in an override must fail closed. */
export const unknownNames = (registry: readonly string[], names: readonly string[]): string[] => {
  const known = new Set(registry);
  return names.filter((n) => !known.has(n));
};

/**
 * The launch's own tool flags (--read-only, --tools, --exclude-tools). Like a discipline's overrides they
 * only ever remove: they are turned into names to remove before resolveTools, never into an allow-list.
 */
export interface ToolFilters {
  readOnly: boolean;
  /** --tools: every other tool is removed (null: not given). */
  only: readonly string[] | null;
  exclude: readonly string[];
}

export const NO_TOOL_FILTERS: ToolFilters = { readOnly: false, only: null, exclude: [] };

/** The registry names the filters remove; `isReadOnly` says whether a tool's annotations say readOnlyHint. */
export function removedByFilters(
  registry: readonly string[],
  filters: ToolFilters,
  isReadOnly: (name: string) => boolean,
): string[] {
  const only = filters.only === null ? null : new Set(filters.only);
  const exclude = new Set(filters.exclude);
  return registry.filter(
    (n) => exclude.has(n) || (only !== null && !only.has(n)) || (filters.readOnly && !isReadOnly(n)),
  );
}
