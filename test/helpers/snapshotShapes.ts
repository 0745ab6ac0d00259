/**
 * Tool snapshots state each schema once. A sub-schema many tools share (the error result, a task, a
 * comment…) is named here by where one copy of it is; wherever an equal copy stands in a tool's entry, its
 * snapshot says "$Name", and test/snapshots/shapes.json holds the shape itself. A narrowed variant of a
 * tool is kept as the JSON Patch (RFC 6902) that turns the tool's own snapshot into it.
 */
export const SHAPES: Record<string, [tool: string, pointer: string]> = {
  ErrorResult: ['get_task', '/outputSchema/anyOf/1'],
  Task: ['get_task', '/outputSchema/anyOf/0/properties/task'],
  Comment: ['add_task_comment', '/outputSchema/anyOf/0/properties/comment'],
  Signal: ['partial', '/outputSchema'],
  Discipline: ['create_discipline', '/outputSchema/anyOf/0/properties/discipline'],
  Learning: ['get_feature', '/outputSchema/anyOf/0/properties/feature/properties/learnings/items'],
  KnowledgeEntry: [
    'get_feature',
    '/outputSchema/anyOf/0/properties/feature/properties/knowledge/items/properties/entries/items',
  ],
  Lease: ['next_tasks', '/outputSchema/anyOf/0/properties/tasks/items/properties/takes_over'],
};

type Json = unknown;
const text = (v: Json) => JSON.stringify(v);
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at a JSON Pointer (no escapes: our keys have no "/" or "~"). */
export function at(value: Json, pointer: string): Json {
  return pointer
    .split('/')
    .slice(1)
    .reduce<Json>((v, key) => (v as Record<string, Json>)?.[key], value);
}

/** Each shape as it stands in the listing `byName` (tool name → entry). */
export function shapesIn(byName: Map<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(SHAPES).map(([name, [tool, pointer]]) => [name, at(byName.get(tool), pointer)]),
  );
}

/** `value` with every sub-value equal to a shape written "$Name" (the outermost match wins). */
export function named(value: Json, shapes: Record<string, Json>): Json {
  const byText = new Map(Object.entries(shapes).map(([name, shape]) => [text(shape), `$${name}`]));
  const walk = (v: Json): Json => {
    if (typeof v !== 'object' || v === null) return v;
    const name = byText.get(text(v));
    if (name) return name;
    return Array.isArray(v) ? v.map(walk) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  return walk(value);
}

export type PatchOp = { op: 'remove'; path: string } | { op: 'add' | 'replace'; path: string; value: Json };

/**
 * The JSON Patch from `base` to `value`, member by member where the kept keys stay in order (removed keys
 * go, added ones come last, as applying it in order would leave them); anything else is replaced whole,
 * so applying the patch gives `value` byte for byte.
 */
export function patchFrom(base: Json, value: Json, path = ''): PatchOp[] {
  if (text(base) === text(value)) return [];
  if (!isObject(base) || !isObject(value)) return [{ op: 'replace', path, value }];
  const kept = Object.keys(base).filter((k) => k in value);
  const added = Object.keys(value).filter((k) => !(k in base));
  if (text(Object.keys(value)) !== text([...kept, ...added])) return [{ op: 'replace', path, value }];
  return [
    ...Object.keys(base)
      .filter((k) => !(k in value))
      .map((k) => ({ op: 'remove' as const, path: `${path}/${k}` })),
    ...kept.flatMap((k) => patchFrom(base[k], value[k], `${path}/${k}`)),
    ...added.map((k) => ({ op: 'add' as const, path: `${path}/${k}`, value: value[k] })),
  ];
}
