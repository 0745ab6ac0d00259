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
