/**
 * Fuzzing the server, shared by the fast tests (test/e2e/node/fuzz.protocol.test.ts,
 * test/slow/fuzz.args.test.ts) and the long run (`npm run stress` → run() below):
 *
 * - protocol: hostile lines on stdio (not JSON, not JSON-RPC, batches, wrong ids, unknown methods,
 *   binary garbage, invalid UTF-8, NUL bytes, CRLF, deep nesting, huge and oversized lines, floods),
 *   interleaved with well-formed requests. The server must stay up, write nothing but JSON-RPC on
 *   stdout, answer every request that has a usable id exactly once, and answer the well-formed ones
 *   as expected;
 * - arguments: fast-check cases for every tool's input schema (wrong types, missing and unknown
 *   fields, strings over the limit, NUL and control characters, deep nesting, numbers out of range):
 *   a tool result every time, `invalid_argument` naming the field for a bad shape, never `internal`;
 * - limits: every string and list in every input schema, one over its limit and exactly at it.
 *
 * This module starts servers itself (no test helpers: they register node:test hooks).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import type { Project } from '../../src/domain/project.js';
import { REGISTRY } from '../../src/registry/registry.js';
import { recipeByName } from '../../src/registry/recipes.js';
import { LISTS_ALSO_STRING } from '../../src/tools/fields.js';
import { createSampleProject } from '../sampleProject.js';
import type { StressFigures } from './types.js';

/** The built bundle (this file runs from dist/scripts/stress/). */
export const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'ralph-mcp.js');

// ---- schema introspection (zod 4) ------------------------------------------------------------

export type FieldKind = 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'object' | 'other';

/** One input field (or list element, or nested object) as the fuzzers and the limits table see it. */
export interface FieldSpec {
  /** 'title', 'tasks[].title', 'tags[]' */
  path: string;
  kind: FieldKind;
  optional: boolean;
  /** string: characters; array: items; number: value (see minExclusive). */
  min?: number;
  max?: number;
  minExclusive?: boolean;
  int?: boolean;
  /** string: trimmed before the length checks */
  trim?: boolean;
  values?: string[];
  element?: FieldSpec;
  fields?: FieldSpec[];
  /** object: unknown keys refused */
  strict?: boolean;
  /** array: one ';'-separated string is accepted too (src/tools/fields.ts orSemicolons) */
  alsoString?: boolean;
  /** record: its keys and its values (only the limits table reads them; the fuzzers leave records alone) */
  entries?: { key: FieldSpec; value: FieldSpec };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyZod = any;

/** Describes a zod 4 schema from its internals (`_zod.def`: type, checks, innerType, element, shape). */
export function describeSchema(schema: z.ZodType, path = ''): FieldSpec {
  let s: AnyZod = schema;
  let optional = false;
  while (['optional', 'default', 'nullable', 'readonly'].includes(s._zod.def.type)) {
    if (s._zod.def.type !== 'nullable') optional = true;
    s = s._zod.def.innerType;
  }
  // A list that also takes one string: described as the list it becomes.
  const alsoString = LISTS_ALSO_STRING.has(s);
  if (alsoString) s = s._zod.def.out;
  const def = s._zod.def;
  const checks: AnyZod[] = (def.checks ?? []).map((c: AnyZod) => c._zod.def);
  const spec: FieldSpec = { path, kind: 'other', optional, ...(alsoString ? { alsoString } : {}) };
  for (const c of checks) {
    if (c.check === 'max_length') spec.max = c.maximum;
    if (c.check === 'min_length') spec.min = c.minimum;
    if (c.check === 'less_than') spec.max = c.value;
    if (c.check === 'greater_than') {
      spec.min = c.value;
      spec.minExclusive = !c.inclusive;
    }
    if (c.check === 'number_format' && /int/.test(String(c.format))) spec.int = true;
    if (c.check === 'overwrite') spec.trim = true;
  }
  switch (def.type) {
    case 'string':
      spec.kind = 'string';
      break;
    case 'number':
      spec.kind = 'number';
      break;
    case 'boolean':
      spec.kind = 'boolean';
      break;
    case 'enum':
      spec.kind = 'enum';
      spec.values = Object.values(def.entries as Record<string, string>);
      break;
    case 'array':
      spec.kind = 'array';
      spec.element = describeSchema(def.element, `${path}[]`);
      break;
    case 'object':
      spec.kind = 'object';
      spec.strict = def.catchall?._zod?.def?.type === 'never';
      spec.fields = Object.entries(def.shape as Record<string, z.ZodType>).map(([k, v]) =>
        describeSchema(v, path ? `${path}.${k}` : k),
      );
      break;
    case 'record':
      spec.entries = {
        key: describeSchema(def.keyType, `${path}{key}`),
        value: describeSchema(def.valueType, `${path}{}`),
      };
      break;
  }
  return spec;
}

/** The last segment of a field path: the object key ('tasks[].title' → 'title'). */
export const keyOf = (spec: FieldSpec): string => spec.path.split('.').pop()!.replace(/\[\]$/, '');
/** The first segment: the top-level argument ('tasks[].title' → 'tasks'). */
export const topOf = (path: string): string => path.split(/[.[]/)[0]!;

export interface ToolSpec {
  name: string;
  readOnly: boolean;
  input: FieldSpec;
}

/** Every tool of the full suite, in registry order, with its input schema described. */
export const TOOL_SPECS: ToolSpec[] = REGISTRY.map((t) => ({
  name: t.name,
  readOnly: t.annotations.readOnlyHint,
  input: describeSchema(t.input),
}));

/** Every field of a tool's input, depth-first: nested object fields and list elements too. */
export function allFields(spec: FieldSpec): FieldSpec[] {
  const out: FieldSpec[] = [];
  const walk = (f: FieldSpec) => {
    if (f.path !== '') out.push(f);
    if (f.element) walk(f.element);
    for (const c of f.fields ?? []) walk(c);
  };
  walk(spec);
  return out;
}

export interface LimitRow {
  tool: string;
  /** 'title', 'tasks[].title', 'tags[]'; a record's keys 'env{key}', its values 'env{}' */
  field: string;
  kind: 'characters' | 'items' | 'range';
  min?: number;
  max: number;
}

/**
 * Every size limit in every tool's input schema: string lengths, list lengths, bounded numbers.
 * `records`: a record's keys and values too (the reference lists them; the probes do not reach them).
 */
export function limitRows(opts: { records?: boolean } = {}): LimitRow[] {
  const rows: LimitRow[] = [];
  for (const t of TOOL_SPECS) {
    const fields = allFields(t.input);
    if (opts.records) fields.push(...fields.flatMap((f) => (f.entries ? [f.entries.key, f.entries.value] : [])));
    for (const f of fields) {
      if (f.kind === 'string' && f.max !== undefined)
        rows.push({ tool: t.name, field: f.path, kind: 'characters', max: f.max });
      if (f.kind === 'array' && f.max !== undefined)
        rows.push({ tool: t.name, field: f.path, kind: 'items', max: f.max });
      if (f.kind === 'number' && f.max !== undefined && f.min !== undefined)
        rows.push({ tool: t.name, field: f.path, kind: 'range', min: f.min, max: f.max });
    }
  }
  return rows;
}

/** String and list fields with no size limit in the schema, and why that is fine. */
export const UNLIMITED_OK: Record<string, string> = {
  acronym: 'checked by the tool: exactly 4 characters A-Z/0-9',
};

// ---- argument values ---------------------------------------------------------------------------

/** Names, ids and paths that exist in the sample project, so valid-shaped calls reach the handlers. */
const NAMES = ['recipes', 'search', 'auth', 'backend', 'frontend', 'quality', 'documentation', 'new-thing', 'x_1'];
const PATHS = ['src/app.ts', 'docs/readme.md', 'src/api/recipes.ts', './src//a.ts', 'café/ａｐｐ.ts'];
/** Characters that have broken servers before: NUL, controls, separators, lone surrogates, quotes. */
const NASTY = [
  '\0',
  '\x01',
  '\x07',
  '\b',
  '\t',
  '\n',
  '\r',
  '\x1b[31m',
  '\x7f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ud800',
  '\udfff',
  '😀',
  '"',
  "'",
  '\\',
  '%2e',
  '../',
  '{',
  '}',
  ' ',
  'é',
];

/**
 * Any code point, lone surrogates included (what fast-check's 'binary' unit gives, without the
 * million-entry reverse mapping it builds for every string arbitrary).
 */
const ANY_CHAR = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));

const nastyString = (maxLength: number) =>
  fc
    .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ minLength: 1, maxLength: 3 })), {
      minLength: 1,
      maxLength: Math.max(1, Math.min(12, Math.floor(maxLength / 3))),
    })
    .map((parts) => parts.join('').slice(0, maxLength));

/** Arbitraries are built once per field (building them is far slower than drawing from them). */
function memo<T>(fn: (f: FieldSpec) => T): (f: FieldSpec) => T {
  const cache = new WeakMap<FieldSpec, T>();
  return (f) => {
    if (!cache.has(f)) cache.set(f, fn(f));
    return cache.get(f)!;
  };
}

/** Arbitrary values of the right shape (they may still break a rule the tool checks itself). */
export const validValue = memo((f: FieldSpec): fc.Arbitrary<unknown> => {
  switch (f.kind) {
    case 'string': {
      const max = f.max ?? 100;
      const min = f.min ?? 0;
      const key = keyOf(f);
      const pool = /path|file/.test(key)
        ? PATHS
        : /name|feature|discipline|author/.test(key)
          ? NAMES
          : key === 'color'
            ? ['#000000', '#1e90ff', 'red']
            : ['hello', 'Rank title matches first', 'x'];
      return fc
        .oneof(
          { weight: 3, arbitrary: fc.constantFrom(...pool) },
          { weight: 2, arbitrary: fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(max, 40) }) },
          {
            weight: 1,
            arbitrary: fc.string({ unit: ANY_CHAR, minLength: Math.max(min, 1), maxLength: Math.min(max, 40) }),
          },
          { weight: 2, arbitrary: nastyString(max) },
        )
        .filter((s) => s.length >= min && s.length <= max);
    }
    case 'number': {
      const lo = f.min === undefined ? -1000 : f.minExclusive ? f.min + 1 : f.min;
      const hi = f.max ?? lo + 20;
      return f.int
        ? fc.oneof(fc.integer({ min: lo, max: Math.min(hi, lo + 12) }), fc.integer({ min: lo, max: hi }))
        : fc.double({ min: lo, max: hi, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...f.values!);
    case 'array':
      return fc.array(validValue(f.element!), {
        minLength: f.min ?? 0,
        maxLength: Math.min(f.max ?? 4, Math.max(f.min ?? 0, 4)),
      });
    case 'object':
      return validObject(f);
    default:
      return fc.anything({ maxDepth: 2 });
  }
});

/** A valid-shaped object: every required field, a random subset of the optional ones. */
export const validObject = memo((f: FieldSpec): fc.Arbitrary<Record<string, unknown>> => {
  const fields = f.fields ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const c of fields) model[keyOf(c)] = validValue(c);
  const requiredKeys = fields.filter((c) => !c.optional).map(keyOf);
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
});

/** A value nested `depth` levels deep (arrays and objects alternating), built without recursion. */
export function deepValue(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

/** The same nesting as JSON text, for depths no JSON.stringify could produce. */
export const deepJson = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

const otherThan = (kind: FieldKind, alsoString = false) =>
  fc.oneof(
    ...(kind !== 'string' && !alsoString ? [fc.string({ maxLength: 8 })] : []),
    ...(kind !== 'number' ? [fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))] : []),
    ...(kind !== 'boolean' ? [fc.boolean()] : []),
    ...(kind !== 'array' ? [fc.array(fc.integer(), { maxLength: 3 })] : []),
    ...(kind !== 'object'
      ? [fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.integer(), { maxKeys: 3 })]
      : []),
    fc.constant(null),
    fc.integer({ min: 2, max: 300 }).map(deepValue),
  );

let huge: string | undefined;
/** One shared 1 MiB string: longer than every limit. */
const hugeString = (): string => (huge ??= 'x'.repeat(1024 * 1024));

/** A value this field refuses whatever the tool's own rules: the case's `why` says how. */
export const invalidValue = memo((f: FieldSpec): fc.Arbitrary<{ value: unknown; why: string }> => {
  const options: fc.Arbitrary<{ value: unknown; why: string }>[] = [
    otherThan(f.kind, f.alsoString).map((value) => ({ value, why: 'wrong type' })),
  ];
  switch (f.kind) {
    case 'string':
      if (f.max !== undefined) {
        const max = f.max;
        options.push(
          fc
            .integer({ min: 1, max: 40 })
            .map((k) => ({ value: 'x'.repeat(max + k), why: `over the limit (${max} chars)` })),
          fc
            .constantFrom('\0', '\x01', '\n', '\ud800')
            .map((c) => ({ value: `x${c.repeat(max)}x`, why: `over the limit with control characters` })),
          fc.constant(null).map(() => ({ value: hugeString(), why: 'huge string (1 MiB)' })),
        );
      }
      if ((f.min ?? 0) >= 1)
        options.push(fc.constantFrom('', ...(f.trim ? [' ', '\t\n '] : [])).map((value) => ({ value, why: 'empty' })));
      break;
    case 'number': {
      const lo = f.min;
      const bad: number[] = [2 ** 53, -(2 ** 53), 1e300, -1e300];
      if (lo !== undefined) bad.push(f.minExclusive ? lo : lo - 1, lo - 1000, -1);
      if (f.max !== undefined) bad.push(f.max + 1, f.max * 1000 + 7);
      if (f.int) bad.push(1.5, 0.1 + (lo ?? 0) + 1, 7.000001);
      options.push(
        fc
          .constantFrom(
            ...bad.filter(
              (n) =>
                lo === undefined ||
                n < lo ||
                (f.minExclusive && n === lo) ||
                (f.max !== undefined && n > f.max) ||
                (f.int && !Number.isSafeInteger(n)),
            ),
          )
          .map((value) => ({ value, why: 'out of range' })),
      );
      options.push(
        fc.constantFrom(NaN, Infinity, -Infinity).map((value) => ({ value, why: 'NaN/Infinity (null on the wire)' })),
      );
      options.push(fc.constantFrom('1', '1e3', ' 2').map((value) => ({ value, why: 'number as a string' })));
      break;
    }
    case 'enum':
      options.push(
        fc
          .string({ maxLength: 12 })
          .filter((s) => !f.values!.includes(s))
          .map((value) => ({ value, why: 'not one of the values' })),
      );
      break;
    case 'array': {
      const el = f.element!;
      if (f.max !== undefined) {
        const max = f.max;
        options.push(
          fc
            .array(validValue(el), { minLength: max + 1, maxLength: max + 3 })
            .map((value) => ({ value, why: `over the limit (${max} items)` })),
        );
      }
      if ((f.min ?? 0) >= 1) options.push(fc.constant({ value: [], why: 'empty list' }));
      options.push(
        fc
          .tuple(fc.array(validValue(el), { maxLength: 2 }), invalidValue(el))
          .map(([ok, bad]) => ({ value: [...ok, bad.value], why: `an element: ${bad.why}` })),
      );
      break;
    }
    case 'object':
      options.push(invalidObject(f).map((c) => ({ value: c.args, why: `inside: ${c.why}` })));
      break;
  }
  return fc.oneof(...options);
});

interface Mutated {
  args: Record<string, unknown>;
  why: string;
  /** The field the error message must name. */
  field: string;
}

/** A valid-shaped object with exactly one thing wrong: a bad field, a missing one, an unknown one. */
export const invalidObject = memo((f: FieldSpec): fc.Arbitrary<Mutated> => {
  const fields = f.fields ?? [];
  const keys = new Set(fields.map(keyOf));
  const options: fc.Arbitrary<Mutated>[] = [];
  if (fields.length > 0) {
    options.push(
      fc
        .constantFrom(...fields)
        .chain((c) => fc.tuple(validObject(f), invalidValue(c), fc.constant(c)))
        .map(([args, bad, c]) => ({
          args: { ...args, [keyOf(c)]: bad.value },
          why: `${c.path}: ${bad.why}`,
          field: keyOf(c),
        })),
    );
  }
  const required = fields.filter((c) => !c.optional);
  if (required.length > 0) {
    options.push(
      fc
        .constantFrom(...required)
        .chain((c) => fc.tuple(validObject(f), fc.constant(c)))
        .map(([args, c]) => {
          const copy = { ...args };
          delete copy[keyOf(c)];
          return { args: copy, why: `${c.path}: missing`, field: keyOf(c) };
        }),
    );
  }
  if (f.strict) {
    const extraKey = fc.oneof(
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.constantFrom('constructor', 'toString', '__proto__', 'hasOwnProperty', 'ID', 'Id ', 'x'.repeat(5000), '\0'),
    );
    const extraValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: 50, max: 500 }).map(deepValue));
    options.push(
      fc
        .tuple(
          validObject(f),
          extraKey.filter((k) => !keys.has(k)),
          extraValue,
        )
        .map(([args, k, v]) => {
          const copy: Record<string, unknown> = { ...args };
          Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true }); // '__proto__' as a plain key
          return { args: copy, why: `unknown field ${JSON.stringify(k.slice(0, 20))}`, field: k };
        }),
    );
  }
  return fc.oneof(...options);
});

export interface ArgCase {
  tool: string;
  args: Record<string, unknown>;
  /** 'any': shaped right, so any refusal but `internal` is fine; 'invalid': must be invalid_argument naming `field`. */
  expect: 'any' | 'invalid';
  field?: string;
  why: string;
}

/** One fuzz case for one tool: about a third valid-shaped, the rest broken in exactly one way. */
const toolCases = new WeakMap<ToolSpec, fc.Arbitrary<ArgCase>>();
export function toolCase(t: ToolSpec): fc.Arbitrary<ArgCase> {
  if (!toolCases.has(t)) toolCases.set(t, buildToolCase(t));
  return toolCases.get(t)!;
}
function buildToolCase(t: ToolSpec): fc.Arbitrary<ArgCase> {
  const valid = validObject(t.input).map(
    (args): ArgCase => ({ tool: t.name, args, expect: 'any', why: 'valid shape' }),
  );
  const invalid = invalidObject(t.input).map(
    (m): ArgCase => ({ tool: t.name, args: m.args, expect: 'invalid', field: m.field, why: m.why }),
  );
  // A tool without fields can only be broken by an unknown one.
  return (t.input.fields ?? []).length === 0 && !t.input.strict
    ? valid
    : fc.oneof({ weight: 1, arbitrary: valid }, { weight: 2, arbitrary: invalid });
}

/** A case for any tool of the list (default: every tool of the full suite). */
export const argCase = (tools: ToolSpec[] = TOOL_SPECS): fc.Arbitrary<ArgCase> =>
  fc.constantFrom(...tools).chain(toolCase);

/** Error codes a tool may answer a single session with; `internal`, `busy` and `io_error` are failures here. */
export const EXPECTED_REFUSALS = ['invalid_argument', 'not_found', 'conflict', 'out_of_scope'];

const short = (v: unknown, n = 300): string => {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = `<${typeof v}: not serialisable>`;
  }
  return s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s;
};

/** Checks one tool result against the case; returns what is wrong, or null. */
export function checkToolResult(c: ArgCase, r: CallToolResult | undefined): string | null {
  const label = `${c.tool} [${c.why}] ${short(c.args, 200)}`;
  if (!r || !Array.isArray(r.content)) return `${label}: not a tool result: ${short(r)}`;
  const error = (r.structuredContent as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (r.isError) {
    if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || error.message === '')
      return `${label}: isError without a structured error: ${short(r)}`;
    if (c.expect === 'invalid') {
      if (error.code !== 'invalid_argument')
        return `${label}: expected invalid_argument, got ${error.code}: ${error.message}`;
      const f = c.field!;
      const named =
        error.message.includes(`${f}:`) || error.message.includes(`${f}.`) || error.message.includes(JSON.stringify(f));
      if (!named)
        return `${label}: the message does not name the field ${JSON.stringify(f.slice(0, 40))}: ${error.message.slice(0, 300)}`;
      return null;
    }
    if (!EXPECTED_REFUSALS.includes(error.code)) return `${label}: unexpected ${error.code}: ${error.message}`;
    return null;
  }
  if (c.expect === 'invalid')
    return `${label}: expected invalid_argument, but the call succeeded: ${short(r.structuredContent)}`;
  if (!r.structuredContent || typeof r.structuredContent !== 'object')
    return `${label}: a success without structuredContent`;
  return null;
}

// ---- servers -----------------------------------------------------------------------------------

/**
 * A fresh sample project in a temp dir, and its removal. On Ralph's normalized schema: every tool exists
 * there (the templates tools do not on legacy), so the runs fuzz the whole registry.
 */
export function tempProject(): { project: Project; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-mcp-fuzz-'));
  return {
    project: createSampleProject(dir, 'Recipe Box', 'normalized'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** PRAGMA integrity_check on a second connection: 'ok' or the problems. */
export function integrityCheck(project: Project): string {
  const db = new Database(project.dbPath, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** An SDK client session on the built server (for the stress run; the tests use test/helpers/server.ts). */
export async function sdkSession(
  project: Project,
  flags: string[] = [],
): Promise<{
  client: Client;
  call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
  pid: () => number | null;
  close: () => Promise<void>;
}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--project', project.root, '--log-level', 'error', ...flags],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'ralph-mcp-fuzz', version: '0' });
  await client.connect(transport);
  await client.listTools(); // caches the output schemas: the client then checks every success against its tool's
  return {
    client,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult,
    pid: () => transport.pid,
    close: () => client.close(),
  };
}

type Id = string | number;
const idKey = (id: unknown): string => JSON.stringify(id);

/**
 * The server over stdio with a bare line client that keeps every stdout line: lines that are not
 * JSON-RPC 2.0 objects (or not valid UTF-8) go to `junk`, answers are counted per id.
 */
export class LineServer {
  readonly child: ChildProcess;
  readonly junk: string[] = [];
  /** Answers per id key (JSON of the id): more than one is a failure. */
  readonly answers = new Map<string, any[]>();
  /** Error answers without an id (to lines that had no usable one): the first 1,000 of them are kept. */
  idless = 0;
  readonly idlessErrors: { code: number; message: string }[] = [];
  lines = 0;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Set when we end the session (stdin closed or killed): an exit before that is a crash. */
  stopping = false;
  readonly exited: Promise<void>;
  private stderrTail = '';
  private partial: Buffer[] = [];
  private waiters = new Map<string, () => void>();
  private nextId = 1;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (b: Buffer) => this.onData(b));
    this.child.stderr!.on('data', (b: Buffer) => (this.stderrTail = (this.stderrTail + b.toString()).slice(-6000)));
    this.child.stdin!.on('error', () => undefined); // EPIPE once it is gone: reported through exit
    this.exited = new Promise((res) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        for (const w of this.waiters.values()) w();
        res();
      }),
    );
  }

  static async start(project: Project, flags: string[] = []): Promise<LineServer> {
    const s = new LineServer(['--project', project.root, '--log-level', 'warn', ...flags]);
    const init = await s.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '0' },
    });
    if (!init?.result) throw new Error(`initialize failed: ${short(init)}\n${s.stderr()}`);
    s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return s;
  }

  /** The server died on its own (not because we closed or killed it). */
  get crashed(): boolean {
    return this.exit !== undefined && !this.stopping;
  }

  stderr(): string {
    return this.stderrTail;
  }

  private onData(b: Buffer): void {
    let start = 0;
    for (let nl = b.indexOf(0x0a); nl !== -1; nl = b.indexOf(0x0a, start)) {
      this.partial.push(b.subarray(start, nl));
      const line = Buffer.concat(this.partial);
      this.partial = [];
      start = nl + 1;
      this.onLine(line);
    }
    if (start < b.length) this.partial.push(b.subarray(start));
  }

  private onLine(buf: Buffer): void {
    this.lines++;
    let text: string;
    let msg: any;
    try {
      text = this.decoder.decode(buf);
      msg = JSON.parse(text);
    } catch {
      this.junk.push(buf.subarray(0, 300).toString('utf8'));
      return;
    }
    const isAnswer =
      msg !== null &&
      typeof msg === 'object' &&
      !Array.isArray(msg) &&
      msg.jsonrpc === '2.0' &&
      ('result' in msg || 'error' in msg);
    const isServerMessage =
      msg !== null && typeof msg === 'object' && msg.jsonrpc === '2.0' && typeof msg.method === 'string';
    if (!isAnswer && !isServerMessage) {
      this.junk.push(text.slice(0, 300));
      return;
    }
    if (!isAnswer) return;
    if (!('id' in msg)) {
      if ('error' in msg) {
        this.idless++;
        if (this.idlessErrors.length < 1000) this.idlessErrors.push(msg.error);
      } else this.junk.push(`a result without an id: ${text.slice(0, 300)}`);
      return;
    }
    const key = idKey(msg.id);
    const list = this.answers.get(key) ?? [];
    list.push(msg);
    this.answers.set(key, list);
    this.waiters.get(key)?.();
    this.waiters.delete(key);
  }

  write(data: string | Buffer): void {
    if (this.exit === undefined) this.child.stdin!.write(data);
  }

  /** Writes and waits until everything queued is handed to the pipe (backpressure for big floods). */
  async writeAll(data: string | Buffer): Promise<void> {
    if (this.exit !== undefined) return;
    await new Promise<void>((res) => {
      const ok = this.child.stdin!.write(data, () => res());
      if (!ok) this.child.stdin!.once('drain', () => undefined);
    });
  }

  /** A fresh integer id for a well-formed request. */
  id(): number {
    return this.nextId++;
  }

  line(method: string, params: unknown, id: Id = this.id()): { id: Id; text: string } {
    return {
      id,
      text: `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`,
    };
  }

  /** Resolves with the (first) answer to this id, or undefined after the timeout or the server's exit. */
  waitFor(id: Id, timeoutMs = 20_000): Promise<any> {
    const key = idKey(id);
    const have = this.answers.get(key);
    if (have || this.exit) return Promise.resolve(have?.[0]);
    return new Promise((res) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        res(undefined);
      }, timeoutMs);
      this.waiters.set(key, () => {
        clearTimeout(timer);
        res(this.answers.get(key)?.[0]);
      });
    });
  }

  async request(method: string, params?: unknown, timeoutMs?: number): Promise<any> {
    const { id, text } = this.line(method, params);
    this.write(text);
    return this.waitFor(id, timeoutMs);
  }

  /** Closes stdin and waits for the exit (killing it after `ms`). */
  async close(ms = 5000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.stopping = true;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    await this.exited;
    clearTimeout(timer);
    return this.exit!;
  }
}

// ---- protocol fuzz -----------------------------------------------------------------------------

/**
 * What a line must get back:
 * - 'result': exactly one answer, a result (for tools/call: not isError)
 * - 'tool:<code>': exactly one answer, a tool result with isError and that error code
 * - 'rpc:<code>': exactly one answer, a JSON-RPC error with that code
 * - 'answer': exactly one answer, of any kind
 * - 'none': no answer with this id (there is none to give, or the line was never read)
 */
export type Expect = 'result' | 'answer' | 'none' | `tool:${string}` | `rpc:${number}`;

export interface FuzzLine {
  /** The bytes to write, including the line end(s). */
  data: Buffer;
  id?: Id;
  expect: Expect;
  what: string;
}

const text = (s: string) => Buffer.from(s, 'utf8');
const obj = (o: unknown, end = '\n') => text(JSON.stringify(o) + end);

/** Tools a hostile line may call with random arguments: read-only ones, so the well-formed checks stay true. */
const READ_TOOLS = TOOL_SPECS.filter((t) => t.readOnly).map((t) => t.name);

/**
 * The fixed hostile lines every protocol run sends, one of each kind the issue names. Ids of hostile
 * lines are strings 'h…' (or integers from 1e9), never the small integers of the well-formed requests.
 */
export function fixedHostileLines(
  opts: { hugeBytes?: number; oversizeBytes?: number; deepDepth?: number } = {},
): FuzzLine[] {
  const { hugeBytes = 6 * 1024 * 1024, oversizeBytes = 11 * 1024 * 1024, deepDepth = 100_000 } = opts;
  let n = 0;
  const hid = () => `h${++n}`;
  const lines: FuzzLine[] = [];
  const add = (what: string, data: Buffer, expect: Expect, id?: Id) =>
    lines.push({ what, data, expect, ...(id !== undefined ? { id } : {}) });
  const req = (what: string, o: Record<string, unknown>, expect: Expect, end = '\n') => {
    const id = 'id' in o && (typeof o.id === 'string' || Number.isSafeInteger(o.id)) ? (o.id as Id) : undefined;
    add(what, obj(o, end), expect, id);
  };
  add('not JSON', text('this is not json\n'), 'none');
  add('truncated JSON', text('{"jsonrpc":"2.0","id":"h0","method":"ping"\n'), 'none');
  add('empty line', text('\n'), 'none');
  add('blank CRLF line', text('   \r\n'), 'none');
  add('JSON number', text('42\n'), 'none');
  add('JSON string', text('"ping"\n'), 'none');
  add('JSON null', text('null\n'), 'none');
  add('JSON true', text('true\n'), 'none');
  add('empty array', text('[]\n'), 'none');
  add('empty object', text('{}\n'), 'none');
  req(
    'batch of requests',
    [
      { jsonrpc: '2.0', id: hid(), method: 'ping' },
      { jsonrpc: '2.0', id: hid(), method: 'tools/list' },
    ] as unknown as Record<string, unknown>,
    'none',
  );
  req('jsonrpc 1.0', { jsonrpc: '1.0', id: hid(), method: 'ping' }, 'rpc:-32600');
  req('jsonrpc missing', { id: hid(), method: 'ping' }, 'rpc:-32600');
  req('jsonrpc as a number', { jsonrpc: 2.0, id: hid(), method: 'ping' }, 'rpc:-32600');
  req('method missing', { jsonrpc: '2.0', id: hid() }, 'rpc:-32600');
  req('method a number', { jsonrpc: '2.0', id: hid(), method: 7 }, 'rpc:-32600');
  req('method null', { jsonrpc: '2.0', id: hid(), method: null }, 'rpc:-32600');
  req('params an array', { jsonrpc: '2.0', id: hid(), method: 'ping', params: [1, 2] }, 'rpc:-32600');
  req('params a string', { jsonrpc: '2.0', id: hid(), method: 'tools/list', params: 'x' }, 'rpc:-32600');
  req('unknown top-level member', { jsonrpc: '2.0', id: hid(), method: 'ping', extra: true }, 'rpc:-32600');
  req('numeric id 1e9', { jsonrpc: '2.0', id: 1_000_000_001, method: 'ping' }, 'result');
  req('negative id', { jsonrpc: '2.0', id: -1_000_000_002, method: 'ping' }, 'result');
  req('empty-string id', { jsonrpc: '2.0', id: '', method: 'ping' }, 'result');
  add('float id', text('{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n'), 'none');
  add('object id', text('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n'), 'none');
  add('array id', text('{"jsonrpc":"2.0","id":[1],"method":"ping"}\n'), 'none');
  add('null id', text('{"jsonrpc":"2.0","id":null,"method":"ping"}\n'), 'none');
  add('boolean id', text('{"jsonrpc":"2.0","id":true,"method":"ping"}\n'), 'none');
  add('huge id', text(`{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n`), 'none');
  req('unknown method', { jsonrpc: '2.0', id: hid(), method: 'no/such/method' }, 'rpc:-32601');
  req('empty method', { jsonrpc: '2.0', id: hid(), method: '' }, 'rpc:-32601');
  req('method with NUL', { jsonrpc: '2.0', id: hid(), method: 'tools/\0list' }, 'rpc:-32601');
  req(
    'notification method with an id',
    { jsonrpc: '2.0', id: hid(), method: 'notifications/initialized' },
    'rpc:-32601',
  );
  req(
    'cancel with an id',
    { jsonrpc: '2.0', id: hid(), method: 'notifications/cancelled', params: { requestId: 'nobody' } },
    'rpc:-32601',
  );
  req('request without an id (a notification to an unknown method)', { jsonrpc: '2.0', method: 'tools/list' }, 'none');
  req(
    'cancel of an unknown request',
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nobody' } },
    'none',
  );
  req('response to nothing', { jsonrpc: '2.0', id: hid(), result: {} }, 'none');
  req('error response to nothing', { jsonrpc: '2.0', id: hid(), error: { code: 1, message: 'x' } }, 'none');
  req('malformed response', { jsonrpc: '2.0', id: hid(), error: 'boom' }, 'none');
  req('tools/call without params', { jsonrpc: '2.0', id: hid(), method: 'tools/call' }, 'rpc:-32602');
  req('tools/call without a name', { jsonrpc: '2.0', id: hid(), method: 'tools/call', params: {} }, 'rpc:-32602');
  req(
    'tools/call with string arguments',
    { jsonrpc: '2.0', id: hid(), method: 'tools/call', params: { name: 'get_task', arguments: 'id=1' } },
    'rpc:-32602',
  );
  req(
    'tools/call with array arguments',
    { jsonrpc: '2.0', id: hid(), method: 'tools/call', params: { name: 'get_task', arguments: [1] } },
    'rpc:-32602',
  );
  req(
    'tools/call of an unknown tool',
    { jsonrpc: '2.0', id: hid(), method: 'tools/call', params: { name: 'drop_database', arguments: {} } },
    'rpc:-32602',
  );
  req(
    'tools/call bad arguments',
    { jsonrpc: '2.0', id: hid(), method: 'tools/call', params: { name: 'get_project_info', arguments: { id: 'one' } } },
    'tool:invalid_argument',
  );
  req(
    'tools/call __proto__ argument',
    {
      jsonrpc: '2.0',
      id: hid(),
      method: 'tools/call',
      params: { name: 'get_project_info', arguments: JSON.parse('{"__proto__":{"x":1}}') },
    },
    'tool:invalid_argument',
  );
  // Tool calls go to get_project_info: every session has it (recipe runs too).
  req(
    'tools/call NUL in an argument name',
    {
      jsonrpc: '2.0',
      id: hid(),
      method: 'tools/call',
      params: { name: 'get_project_info', arguments: { 'a\0b': '\0' } },
    },
    'tool:invalid_argument',
  );
  req(
    'resources/read without a uri',
    { jsonrpc: '2.0', id: hid(), method: 'resources/read', params: {} },
    'rpc:-32602',
  );
  req('prompts/get without a name', { jsonrpc: '2.0', id: hid(), method: 'prompts/get', params: {} }, 'rpc:-32602');
  req(
    'initialize again, garbage params',
    { jsonrpc: '2.0', id: hid(), method: 'initialize', params: { protocolVersion: 7 } },
    'rpc:-32602',
  );
  req('CRLF line end', { jsonrpc: '2.0', id: hid(), method: 'ping' }, 'result', '\r\n');
  req(
    'CR CR LF line end (a CR is JSON white space)',
    { jsonrpc: '2.0', id: hid(), method: 'ping' },
    'result',
    '\r\r\n',
  );
  req('blank lines around', { jsonrpc: '2.0', id: hid(), method: 'ping' }, 'result', '\n\n\n');
  add('NUL bytes', Buffer.from([0, 0, 0, 0x0a]), 'none');
  add('NUL inside JSON', text('{"jsonrpc":"2.0","id":"h-nul","method":"ping"}\0\n'), 'none', 'h-nul');
  add('invalid UTF-8', Buffer.concat([Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), text('\n')]), 'none');
  const badUtf8InString = Buffer.concat([
    text('{"jsonrpc":"2.0","id":"h-utf8","method":"tools/call","params":{"name":"get_project_info","arguments":{"a'),
    Buffer.from([0xff, 0xc3]),
    text('":1}}}\n'),
  ]);
  add('invalid UTF-8 inside a string', badUtf8InString, 'tool:invalid_argument', 'h-utf8');
  add('UTF-8 BOM', text('\ufeff{"jsonrpc":"2.0","id":"h-bom","method":"ping"}\n'), 'none', 'h-bom');
  // (its newline is 0a 00: the extra newline keeps the stray 00 off the next line)
  add(
    'UTF-16 text',
    Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"h-16","method":"ping"}\n', 'utf16le'), text('\n')]),
    'none',
    'h-16',
  );
  add(
    'random binary',
    Buffer.from(
      Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)
        .filter((b) => b !== 0x0a)
        .concat([0x0a]),
    ),
    'none',
  );
  add('control characters', text('\x1b[2J\x07\x08\x7f\n'), 'none');
  add('deeply nested array', text(`${deepJson(deepDepth)}\n`), 'none');
  add(
    'deeply nested params',
    text(`{"jsonrpc":"2.0","id":"h-deep1","method":"ping","params":{"x":${deepJson(deepDepth)}}}\n`),
    'result',
    'h-deep1',
  );
  add(
    'deeply nested arguments',
    text(
      `{"jsonrpc":"2.0","id":"h-deep2","method":"tools/call","params":{"name":"get_project_info","arguments":{"x":${deepJson(deepDepth)}}}}\n`,
    ),
    'tool:invalid_argument',
    'h-deep2',
  );
  add('deeply nested id', text(`{"jsonrpc":"2.0","id":${deepJson(1000)},"method":"ping"}\n`), 'none');
  add(
    'long method name',
    text(`{"jsonrpc":"2.0","id":"h-longm","method":"${'m'.repeat(100_000)}"}\n`),
    'rpc:-32601',
    'h-longm',
  );
  add(
    'many members',
    text(
      `{"jsonrpc":"2.0","id":"h-many","method":"ping","params":{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}}\n`,
    ),
    'result',
    'h-many',
  );
  add(
    'duplicate members',
    text('{"jsonrpc":"2.0","id":"h-dup","method":"tools/list","method":"ping"}\n'),
    'result',
    'h-dup',
  );
  if (hugeBytes > 0) {
    const pad = 'x'.repeat(hugeBytes);
    add(
      `a ${(hugeBytes / 1048576).toFixed(1)} MB tool call`,
      text(
        `{"jsonrpc":"2.0","id":"h-huge","method":"tools/call","params":{"name":"get_project_info","arguments":{"text":"${pad}"}}}\n`,
      ),
      'tool:invalid_argument',
      'h-huge',
    );
    add(
      `a ${(hugeBytes / 1048576).toFixed(1)} MB ping`,
      text(`{"jsonrpc":"2.0","id":"h-huge2","method":"ping","params":{"_meta":{"pad":"${pad}"}}}\n`),
      'result',
      'h-huge2',
    );
  }
  if (oversizeBytes > 0) {
    add(
      `an oversized ${(oversizeBytes / 1048576).toFixed(1)} MB line`,
      text(`{"jsonrpc":"2.0","id":"h-over","method":"ping","params":{"pad":"${'y'.repeat(oversizeBytes)}"}}\n`),
      'none',
      'h-over',
    );
  }
  return lines;
}

const HOSTILE_METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'resources/subscribe',
  'sampling/createMessage',
  'notifications/initialized',
  'notifications/progress',
  'initialize',
  'nope',
  '',
];

/** Random hostile lines (fast-check, seeded): garbage bytes, random JSON, and requests with one or more parts wrong. */
export function randomHostileLines(count: number, seed: number): FuzzLine[] {
  let n = 0;
  const idArb = fc.oneof(
    { weight: 4, arbitrary: fc.constant('usable') },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1.25, true, [], {}, -0.5, 2 ** 60) },
    { weight: 1, arbitrary: fc.constant('absent') },
  );
  const jsonrpcArb = fc.oneof(
    { weight: 5, arbitrary: fc.constant<unknown>('2.0') },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', '2', 2, null, 'absent') },
  );
  const methodArb = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<unknown>(...HOSTILE_METHODS) },
    { weight: 1, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant('absent')) },
  );
  const argsArb = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc
      .constantFrom(...TOOL_SPECS.filter((t) => t.readOnly))
      .chain(toolCase)
      .map((c) => c.args),
  );
  const paramsFor = (method: unknown): fc.Arbitrary<unknown> => {
    if (method === 'tools/call') {
      return fc.record(
        { name: fc.oneof(fc.constantFrom(...READ_TOOLS), fc.string({ maxLength: 20 })), arguments: argsArb },
        { requiredKeys: [] },
      );
    }
    if (method === 'notifications/cancelled') return fc.constant({ requestId: 'nobody' });
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant('absent') },
      {
        weight: 3,
        arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    );
  };
  const requestish = fc
    .tuple(idArb, jsonrpcArb, methodArb, fc.boolean(), fc.constantFrom('\n', '\r\n', '\n\n'))
    .chain(([id, jsonrpc, method, extra, end]) =>
      fc.tuple(fc.constant({ id, jsonrpc, method, extra, end }), paramsFor(method)),
    )
    .map(([p, params]): FuzzLine => {
      const o: Record<string, unknown> = {};
      if (p.jsonrpc !== 'absent') o.jsonrpc = p.jsonrpc;
      let id: Id | undefined;
      if (p.id === 'usable') {
        id = n % 3 === 0 ? 1_000_000_000 + n : `h-r${n}`;
        n++;
        o.id = id;
      } else if (p.id !== 'absent') o.id = p.id;
      if (p.method !== 'absent') o.method = p.method;
      if (params !== 'absent') o.params = params;
      if (p.extra) o.trace = 'x';
      // Only a line with a usable id can be answered with it; one that looks like a response is never answered.
      const looksLikeResponse = !('method' in o) && ('result' in o || 'error' in o);
      return {
        what: 'random request',
        data: obj(o, p.end),
        ...(id !== undefined ? { id, expect: looksLikeResponse ? 'none' : 'answer' } : { expect: 'none' }),
      };
    });
  const garbage = fc.oneof(
    fc
      .uint8Array({ minLength: 1, maxLength: 300 })
      .map(
        (b): FuzzLine => ({ what: 'random bytes', data: Buffer.concat([Buffer.from(b), text('\n')]), expect: 'none' }),
      ),
    fc
      .string({ unit: ANY_CHAR, maxLength: 200 })
      .map((s): FuzzLine => ({ what: 'random text', data: text(`${s}\n`), expect: 'none' })),
    fc
      .jsonValue({ maxDepth: 4 })
      .filter((v) => !(v !== null && typeof v === 'object' && !Array.isArray(v) && ('id' in v || 'method' in v)))
      .map((v): FuzzLine => ({ what: 'random JSON', data: obj(v), expect: 'none' })),
    fc
      .integer({ min: 100, max: 5000 })
      .map((d): FuzzLine => ({ what: 'deep JSON', data: text(`${deepJson(d)}\n`), expect: 'none' })),
  );
  return fc.sample(fc.oneof({ weight: 3, arbitrary: requestish }, { weight: 2, arbitrary: garbage }), {
    seed,
    numRuns: count,
  });
}

/**
 * The well-formed requests of a run: each with the answer it must get. `hidden` is a tool the session lacks (recipe
 * runs).
 */
export function wellFormed(
  s: LineServer,
  count: number,
  opts: { toolCount: number; hidden?: string },
): { line: ReturnType<LineServer['line']>; expect: Expect; check?: (answer: any) => string | null }[] {
  const out: ReturnType<typeof wellFormed> = [];
  for (let i = 0; i < count; i++) {
    // tools/list answers are large (every schema): one in 64, not one in 8
    switch (i % 8 === 1 && i % 64 !== 1 ? 0 : i % 8) {
      case 0:
      case 4:
        out.push({ line: s.line('ping', {}), expect: 'result' });
        break;
      case 1:
        out.push({
          line: s.line('tools/list', {}),
          expect: 'result',
          check: (a) =>
            a.result?.tools?.length === opts.toolCount
              ? null
              : `tools/list gave ${a.result?.tools?.length} tools, expected ${opts.toolCount}`,
        });
        break;
      case 2:
      case 6:
        out.push({
          line: s.line('tools/call', { name: 'get_task', arguments: { id: 1 } }),
          expect: 'result',
          check: (a) =>
            a.result?.structuredContent?.task?.id === 1 ? null : `get_task 1 gave ${short(a.result, 200)}`,
        });
        break;
      case 3:
        out.push({
          line: s.line('tools/call', { name: 'get_task', arguments: { id: -i } }),
          expect: 'tool:invalid_argument',
        });
        break;
      case 5:
        out.push({ line: s.line(`unknown/method-${i}`, {}), expect: 'rpc:-32601' });
        break;
      case 7:
        out.push(
          opts.hidden
            ? { line: s.line('tools/call', { name: opts.hidden, arguments: {} }), expect: 'rpc:-32602' }
            : { line: s.line('resources/read', {}), expect: 'rpc:-32602' },
        );
        break;
    }
  }
  return out;
}

/** Checks the answers to one line; returns what is wrong, or null. */
export function checkAnswers(
  s: LineServer,
  id: Id | undefined,
  expect: Expect,
  what: string,
  check?: (a: any) => string | null,
): string | null {
  if (id === undefined) return null;
  const got = s.answers.get(idKey(id)) ?? [];
  const label = `${what} (id ${idKey(id)})`;
  if (expect === 'none') return got.length === 0 ? null : `${label}: expected no answer, got ${short(got, 300)}`;
  if (got.length === 0) return `${label}: no answer`;
  if (got.length > 1) return `${label}: ${got.length} answers`;
  const a = got[0];
  if (expect === 'answer') return null;
  if (expect === 'result') {
    if (!a.result) return `${label}: expected a result, got ${short(a, 300)}`;
    if (a.result.isError) return `${label}: expected success, got ${short(a.result.structuredContent, 300)}`;
    return check ? check(a) : null;
  }
  if (expect.startsWith('tool:')) {
    const code = expect.slice(5);
    const got = a.result?.isError ? a.result.structuredContent?.error?.code : undefined;
    return got === code ? null : `${label}: expected tool error ${code}, got ${short(a, 300)}`;
  }
  const code = Number(expect.slice(4));
  return a.error?.code === code ? null : `${label}: expected JSON-RPC error ${code}, got ${short(a, 300)}`;
}

export interface ProtocolReport {
  hostileLines: number;
  wellFormed: number;
  /** Requests written in total (hostile + well-formed + the final checks). */
  requests: number;
  failures: string[];
  junk: string[];
  crashed: boolean;
  idless: number;
  seconds: number;
}

export interface ProtocolOptions {
  flags?: string[];
  /** Tools the session lists (38 for the full suite). */
  toolCount: number;
  /** A tool the session does not have (recipe runs). */
  hidden?: string;
  randomHostile: number;
  seed: number;
  /** Well-formed requests interleaved with the hostile lines. */
  interleaved: number;
  /** Well-formed requests written in one go at the end. */
  flood: number;
  fixed?: Parameters<typeof fixedHostileLines>[0];
  /** Answer timeout once everything is written. */
  timeoutMs?: number;
}

/** Seeded chunk sizes: the byte stream is cut at arbitrary points, so lines arrive in pieces. */
function* chunks(buf: Buffer, seed: number): Generator<Buffer> {
  let x = seed >>> 0 || 1;
  for (let at = 0; at < buf.length; ) {
    x = (x * 1103515245 + 12345) >>> 0;
    const size = 1 + (x % 9000);
    yield buf.subarray(at, at + size);
    at += size;
  }
}

/** One protocol fuzz session: start, write everything, wait for the answers, check, close. */
export async function protocolFuzz(project: Project, o: ProtocolOptions): Promise<ProtocolReport> {
  const t0 = performance.now();
  const lap = (m: string) =>
    process.env.FUZZ_DEBUG &&
    process.stderr.write(`  [protocol ${((performance.now() - t0) / 1000).toFixed(2)}s] ${m}\n`);
  const s = await LineServer.start(project, o.flags ?? []);
  lap('started');
  const failures: string[] = [];
  const hostile = [...fixedHostileLines(o.fixed), ...randomHostileLines(o.randomHostile, o.seed)];
  const good = wellFormed(s, o.interleaved, { toolCount: o.toolCount, ...(o.hidden ? { hidden: o.hidden } : {}) });
  // Interleave: spread the well-formed requests evenly through the hostile lines.
  const stream: Buffer[] = [];
  const every = Math.max(1, Math.floor(hostile.length / Math.max(1, good.length)));
  let g = 0;
  hostile.forEach((h, i) => {
    if (i % every === 0 && g < good.length) stream.push(text(good[g++]!.line.text));
    stream.push(h.data);
  });
  while (g < good.length) stream.push(text(good[g++]!.line.text));
  // Huge lines go alone (so chunking does not copy them around); the rest in random pieces.
  const small: Buffer[] = [];
  const flushSmall = async () => {
    const all = Buffer.concat(small);
    small.length = 0;
    let k = 0;
    for (const c of chunks(all, o.seed)) {
      await s.writeAll(c);
      if (++k % 16 === 0) await new Promise((r) => setImmediate(r));
    }
  };
  for (const b of stream) {
    if (b.length > 1_000_000) {
      await flushSmall();
      await s.writeAll(b);
    } else small.push(b);
  }
  await flushSmall();
  lap('hostile and interleaved written');
  // The flood: every request in one write.
  const flood = wellFormed(s, o.flood, { toolCount: o.toolCount, ...(o.hidden ? { hidden: o.hidden } : {}) });
  await s.writeAll(flood.map((f) => f.line.text).join(''));

  // Wait for every answer that must come (well-formed and hostile with a usable id).
  lap('flood written');
  const must = [
    ...good.map((w) => w.line.id),
    ...flood.map((w) => w.line.id),
    ...hostile.filter((h) => h.id !== undefined && h.expect !== 'none').map((h) => h.id!),
  ];
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  for (const id of must) {
    if (s.exit) break;
    await s.waitFor(id, Math.max(1, deadline - Date.now()));
  }
  lap('answers in');
  // And a last round trip, so anything still queued has been written.
  const last = await s.request('tools/call', { name: 'get_task', arguments: { id: 1 } }, 10_000);
  if (last?.result?.structuredContent?.task?.id !== 1)
    failures.push(`the final get_task did not work: ${short(last, 300)}`);
  const ping = await s.request('ping', {}, 10_000);
  if (!ping?.result) failures.push(`the final ping got ${short(ping)}`);

  for (const w of [...good, ...flood]) {
    const f = checkAnswers(s, w.line.id, w.expect, `well-formed ${JSON.parse(w.line.text).method}`, w.check);
    if (f) failures.push(f);
  }
  for (const h of hostile) {
    const f = checkAnswers(s, h.id, h.expect, h.what);
    if (f) failures.push(f);
  }
  // Every answer must belong to something we sent.
  const known = new Set(
    [
      ...must,
      ...hostile.filter((h) => h.id !== undefined).map((h) => h.id!),
      last === undefined ? -1 : last.id,
      ping === undefined ? -1 : ping.id,
      1,
    ].map(idKey),
  );
  for (const k of s.answers.keys())
    if (!known.has(k)) failures.push(`an answer to an id never sent: ${k} ${short(s.answers.get(k), 200)}`);
  for (const [k, list] of s.answers) {
    for (const a of list) {
      if (a.error?.code === -32603) failures.push(`an Internal error (-32603) answer to ${k}: ${short(a.error, 300)}`);
      if (a.result?.structuredContent?.error?.code === 'internal')
        failures.push(`an internal tool error answer to ${k}: ${short(a.result.structuredContent, 300)}`);
    }
  }
  if (s.junk.length > 0)
    failures.push(`${s.junk.length} stdout line(s) that are not JSON-RPC, e.g. ${short(s.junk[0])}`);

  const crashedBeforeClose = s.crashed;
  if (crashedBeforeClose) failures.push(`the server exited on its own: ${short(s.exit)}\n${s.stderr()}`);
  const exit = await s.close();
  if (!crashedBeforeClose && (exit.code !== 0 || exit.signal))
    failures.push(`the server did not exit cleanly when stdin closed: ${short(exit)}\n${s.stderr()}`);
  return {
    hostileLines: hostile.length,
    wellFormed: good.length + flood.length,
    requests: hostile.length + good.length + flood.length + 3,
    failures,
    junk: s.junk,
    crashed: crashedBeforeClose,
    idless: s.idless,
    seconds: (performance.now() - t0) / 1000,
  };
}

// ---- argument fuzz -----------------------------------------------------------------------------

export interface ArgsReport {
  cases: number;
  failures: string[];
  byExpect: { any: number; invalid: number };
  codes: Record<string, number>;
  crashed: boolean;
  integrity: string;
  seconds: number;
}

/** Runs `numRuns` seeded cases through one SDK session; every failure is collected (no shrinking). */
export async function argsFuzz(
  project: Project,
  o: { seed: number; numRuns: number; flags?: string[] },
): Promise<ArgsReport> {
  const t0 = performance.now();
  const session = await sdkSession(project, o.flags ?? []);
  const failures: string[] = [];
  const codes: Record<string, number> = {};
  const byExpect = { any: 0, invalid: 0 };
  let crashed = false;
  let cases = 0;
  const pid = session.pid();
  for (const c of fc.sample(argCase(), { seed: o.seed, numRuns: o.numRuns })) {
    cases++;
    byExpect[c.expect]++;
    let r: CallToolResult | undefined;
    try {
      r = await session.call(c.tool, c.args);
    } catch (err) {
      failures.push(
        `${c.tool} [${c.why}] ${short(c.args, 200)}: the call threw: ${(err as Error).message.slice(0, 400)}`,
      );
      if (pid !== null && !alive(pid)) {
        crashed = true;
        break;
      }
      continue;
    }
    const code = r.isError ? String((r.structuredContent as any)?.error?.code) : 'ok';
    codes[code] = (codes[code] ?? 0) + 1;
    const f = checkToolResult(c, r);
    if (f) failures.push(f);
  }
  if (pid !== null && !alive(pid)) crashed = true;
  await session.close().catch(() => undefined);
  const integrity = integrityCheck(project);
  if (integrity !== 'ok') failures.push(`integrity_check: ${integrity}`);
  return { cases, failures, byExpect, codes, crashed, integrity, seconds: (performance.now() - t0) / 1000 };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// ---- npm run stress ----------------------------------------------------------------------------

const RECIPE_RUNS: { recipe: string[]; toolCount: number; hidden: string }[] = [
  // Counted from the recipes (a hard-coded count went stale when a recipe gained a tool).
  { recipe: ['--recipe', 'yap'], toolCount: recipeByName('yap')!.allow.length, hidden: 'delete_task' },
  { recipe: ['--recipe', 'worker'], toolCount: recipeByName('worker')!.allow.length, hidden: 'create_task' },
  {
    recipe: ['--recipe', 'task_execution', '--task', '3'],
    toolCount: recipeByName('task_execution')!.allow.length,
    hidden: 'list_tasks',
  },
];

/** Runs the jobs, `width` at a time (the machine may have two cores). */
async function pool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return out;
}

/**
 * The long run (about a minute and a half on two cores): five protocol sessions (the full suite twice,
 * three recipes) with thousands of hostile lines, a 1,000,000-deep line, 8 MB and 24 MB lines and a
 * flood each, then tool-argument cases on three sessions. FUZZ_SCALE=2 doubles the counts.
 */
export async function run(): Promise<StressFigures> {
  const t0 = performance.now();
  const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
  const WIDTH = Math.max(1, Math.min(4, cpus().length));
  const failures: string[] = [];
  let processes = 0;
  let operations = 0;
  let fuzzCases = 0;
  let crashes = 0;
  let hangs = 0;
  const log = (m: string) =>
    process.stderr.write(`  fuzz ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s ${m}\n`);

  const big = { hugeBytes: 8 * 1024 * 1024, oversizeBytes: 24 * 1024 * 1024, deepDepth: 1_000_000 };
  const small = { hugeBytes: 6 * 1024 * 1024, oversizeBytes: 11 * 1024 * 1024, deepDepth: 100_000 };
  const protocolRuns = [
    {
      flags: [] as string[],
      toolCount: TOOL_SPECS.length,
      hidden: undefined as string | undefined,
      seed: 7001,
      fixed: big,
    },
    {
      flags: [] as string[],
      toolCount: TOOL_SPECS.length,
      hidden: undefined as string | undefined,
      seed: 7002,
      fixed: small,
    },
    ...RECIPE_RUNS.map((r, k) => ({
      flags: r.recipe,
      toolCount: r.toolCount,
      hidden: r.hidden as string | undefined,
      seed: 8001 + k,
      fixed: small,
    })),
  ];
  await pool(
    protocolRuns.map((pr) => async () => {
      const { project, remove } = tempProject();
      const name = pr.flags.join(' ') || 'full suite';
      try {
        const rep = await protocolFuzz(project, {
          flags: pr.flags,
          toolCount: pr.toolCount,
          ...(pr.hidden ? { hidden: pr.hidden } : {}),
          seed: pr.seed,
          randomHostile: Math.round(3000 * SCALE),
          interleaved: Math.round(1000 * SCALE),
          flood: Math.round(5000 * SCALE),
          fixed: pr.fixed,
          timeoutMs: 60_000,
        });
        processes++;
        operations += rep.requests;
        fuzzCases += rep.hostileLines;
        if (rep.crashed) crashes++;
        else if (rep.failures.some((f) => /no answer/.test(f))) hangs++;
        failures.push(...rep.failures.map((f) => `protocol ${name} seed ${pr.seed}: ${f}`));
        log(
          `protocol ${name}: ${rep.hostileLines} hostile lines, ${rep.wellFormed} well-formed, ${rep.failures.length} failure(s), ${rep.seconds.toFixed(1)} s`,
        );
      } finally {
        remove();
      }
    }),
    WIDTH,
  );

  // Arguments: sessions side by side, each on its own copy with its own seed.
  await pool(
    [101, 202, 303].map((seed) => async () => {
      const { project, remove } = tempProject();
      try {
        const rep = await argsFuzz(project, { seed, numRuns: Math.round(4000 * SCALE) });
        processes++;
        operations += rep.cases;
        fuzzCases += rep.cases;
        if (rep.crashed) crashes++;
        failures.push(...rep.failures.map((f) => `args seed ${seed}: ${f}`));
        log(
          `args seed ${seed}: ${rep.cases} cases (${rep.byExpect.invalid} malformed), outcomes ${JSON.stringify(rep.codes)}, integrity ${rep.integrity}, ${rep.failures.length} failure(s), ${rep.seconds.toFixed(1)} s`,
        );
      } finally {
        remove();
      }
    }),
    WIDTH,
  );

  if (failures.length > 0) {
    // The failures that say most first: after a crash every later request is "no answer".
    const noAnswer = (f: string) => f.endsWith(': no answer');
    process.stderr.write(
      `fuzz: ${failures.length} check failure(s):\n${[
        ...failures.filter((f) => !noAnswer(f)),
        ...failures.filter(noAnswer),
      ]
        .slice(0, 40)
        .map((f) => `  - ${f.slice(0, 600)}`)
        .join('\n')}\n`,
    );
    process.exitCode = 1;
  }
  return {
    name: 'fuzz',
    processes,
    operations,
    lostWrites: 0,
    busyErrors: 0,
    crashesSurvived: 0,
    fuzzCases,
    serverCrashes: crashes,
    seconds: (performance.now() - t0) / 1000,
    notes: `${fuzzCases} cases (hostile stdio lines + tool-argument cases); ${hangs} session(s) stopped answering; ${failures.length} check failure(s)${failures.length > 0 ? ' (listed on stderr; exit code 1)' : ''}`,
  };
}
