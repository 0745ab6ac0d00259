import assert from 'node:assert/strict';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/env.js';
import { NEEDS_DISCIPLINE, RECIPES } from '../helpers/spec.js';
import { contract } from './harness.js';

/**
 * Every argument of every tool, in every session, is a field the MCP Inspector's web form can fill
 * without JSON: an enum is a select, a list of enum values a multi-select, text, numbers and flags their
 * own inputs, a list of objects a list of sub-forms. The Inspector shows any other field as a JSON text
 * area ("Not valid JSON — this field will be omitted" for `high` instead of `"high"`). Only a list or map
 * of free values (tags, file paths, task ids, an MCP server's env) is left to it: the form has no widget
 * for those.
 *
 * `fieldKind` is the web form's rule, as read in Inspector 2.12.0 (clients/web/dist/assets/index-*.js,
 * minified: the schema form's per-property renderer, found from that message; docs/schemas.md). The
 * last test checks that the installed bundle still carries the rule's key tests.
 */
type Schema = Record<string, any>;
type Kind = 'const' | 'select' | 'text' | 'number' | 'checkbox' | 'multiselect' | 'items' | 'object' | 'json';

const isStrings = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');
const constOptions = (branches: unknown): boolean =>
  Array.isArray(branches) && branches.length > 0 && branches.every((b) => typeof b?.const === 'string');
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/** A nullable field as the form unwraps it: `anyOf: [x, {type: null}]` or `type: [x, null]` is x. */
function unwrapNullable(s: Schema): Schema {
  const branches = s.anyOf;
  if (
    Array.isArray(branches) &&
    branches.length === 2 &&
    Object.keys(s).every((k) => k === 'anyOf' || ANNOTATIONS.has(k))
  ) {
    const other = branches.find((b) => b?.type !== 'null');
    if (branches.some((b) => b?.type === 'null') && other && !other.anyOf) {
      const type = other.type ?? (isStrings(other.enum) ? 'string' : undefined);
      return { ...s, ...other, type, anyOf: undefined };
    }
  }
  if (Array.isArray(s.type) && s.type.length === 2 && s.type.includes('null'))
    return { ...s, type: s.type.find((t: string) => t !== 'null') };
  return s;
}

/** What the web form renders for one property, in the order its renderer tests. */
function fieldKind(schema: Schema): Kind {
  const s = unwrapNullable(schema);
  if (s.const !== undefined) return 'const';
  if (s.type === 'string' && s.enum) return 'select';
  if (s.type === 'string' && constOptions(s.oneOf)) return 'select';
  if (s.type === 'string') return 'text';
  if (s.type === 'number' || s.type === 'integer') return 'number';
  if (s.type === 'boolean') return 'checkbox';
  if (s.type === 'array' && (isStrings(s.items?.enum) || constOptions(s.items?.anyOf))) return 'multiselect';
  const items = s.type === 'array' && s.items ? unwrapNullable(s.items) : undefined;
  if (items?.type === 'object' && items.properties) return 'items';
  if (s.type === 'object' && s.properties) return 'object';
  return 'json';
}

/** Each field the form shows for `schema`'s properties, sub-forms included, by path. */
function fields(schema: Schema, at = ''): [string, Kind, Schema][] {
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>).flatMap(([name, prop]) => {
    const path = `${at}${name}`;
    const kind = fieldKind(prop);
    const inner = unwrapNullable(prop);
    const nested =
      kind === 'items'
        ? fields(unwrapNullable(inner.items), `${path}[].`)
        : kind === 'object'
          ? fields(inner, `${path}.`)
          : [];
    return [[path, kind, prop] as [string, Kind, Schema], ...nested];
  });
}

const SCALARS = ['string', 'integer', 'number'];
/** A list or map of free values (no enum, no named properties): what the form leaves to JSON. */
const freeValues = (s: Schema): boolean =>
  (s.type === 'array' && SCALARS.includes(s.items?.type) && s.items.enum === undefined) ||
  (s.type === 'object' && s.properties === undefined && SCALARS.includes(s.additionalProperties?.type));

/** Every sub-schema holding an `enum` without a `type` beside it, by path. */
function untypedEnums(node: unknown, at: string): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => untypedEnums(n, `${at}[${i}]`));
  if (node === null || typeof node !== 'object') return [];
  const own = 'enum' in node && !('type' in node) ? [at] : [];
  return [...own, ...Object.entries(node).flatMap(([k, v]) => untypedEnums(v, `${at}.${k}`))];
}

contract('the MCP Inspector web form', (env) => {
  for (const recipe of [null, ...RECIPES]) {
    const label = recipe ?? 'full suite';
    test(`${label}: every enum is a select, a list of enum values a multi-select; only free lists and maps are JSON`, async () => {
      const flags = recipe ? { recipe, ...(NEEDS_DISCIPLINE.includes(recipe) ? { discipline: 'backend' } : {}) } : {};
      const { tools } = await (await env.open(flags)).client.listTools();
      const json: string[] = [];
      for (const tool of tools) {
        assert.deepEqual(untypedEnums(tool.inputSchema, `${tool.name}.inputSchema`), []);
        assert.deepEqual(untypedEnums(tool.outputSchema, `${tool.name}.outputSchema`), []);
        for (const [path, kind, prop] of fields(tool.inputSchema)) {
          const where = `${tool.name}.${path}: ${JSON.stringify(prop)}`;
          if (kind === 'json') {
            assert.ok(freeValues(prop), `a JSON field in the Inspector's form: ${where}`);
            json.push(`${tool.name}.${path}`);
          }
          if (prop.enum || prop.items?.enum) assert.ok(['select', 'multiselect'].includes(kind), where);
        }
      }
      if (recipe === null) assert.ok(json.includes('create_task.tags'), 'the rule still finds free lists');
    });
  }
});

test("the installed Inspector's web form still has the rule fieldKind mirrors", () => {
  const web = join(realpathSync(join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector')), 'clients', 'web');
  const assets = join(web, 'dist', 'assets');
  const bundle = readdirSync(assets)
    .filter((f) => /^index-.*\.js$/.test(f))
    .map((f) => readFileSync(join(assets, f), 'utf8'))
    .find((text) => text.includes('Not valid JSON — this field will be omitted'));
  assert.ok(bundle, 'the web form bundle (clients/web/dist/assets/index-*.js)');
  // A string enum is a select only with its `type`; a list is a multi-select when its items have an enum.
  assert.match(bundle, /if\((\w+)\.type===`string`&&\1\.enum\)return/);
  assert.match(bundle, /let (\w+)=(\w+)\.items\?\.enum;if\(\2\.type===`array`&&\w+\(\1\)\)/);
  // Anything no rule takes is the JSON field.
  assert.match(bundle, /\.type===`object`&&\w+\.properties\?.{0,400}fieldName:/);
});
