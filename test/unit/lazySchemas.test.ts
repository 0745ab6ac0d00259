import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import * as eager from '@modelcontextprotocol/sdk/types.js';
import { REPO } from '../helpers/env.js';

/**
 * The bundle carries the SDK's types.js rewritten so that each schema is built when first read
 * (scripts/lazySchemas.mjs). The rewritten module must be the same module: the same exports, each
 * schema of the same kind and accepting and giving back exactly what the original does.
 */
const requireHere = createRequire(join(REPO, 'package.json'));
const typesFile = requireHere.resolve('@modelcontextprotocol/sdk/types.js').replace('/cjs/', '/esm/');
const { rewriteTypes } = (await import(pathToFileURL(join(REPO, 'scripts', 'lazySchemas.mjs')).href)) as {
  rewriteTypes: (source: string, file?: string, zod?: string) => string;
};

/** The rewritten module, evaluated as the CommonJS module it is; `loaded` lists what it required. */
function load(loaded: string[] = []): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const require = (id: string) => {
    loaded.push(id);
    return requireHere(id);
  };
  new Function('require', 'exports', 'module', rewriteTypes(readFileSync(typesFile, 'utf8'), typesFile, 'zod/v4'))(
    require,
    module.exports,
    module,
  );
  return module.exports;
}

type Schema = { _zod: { def: { type: string } }; safeParse(v: unknown): { success: boolean; data?: unknown } };
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && '_zod' in v;

test('the same exports, and no schema built (nor zod loaded) before it is read', () => {
  const loaded: string[] = [];
  const lazy = load(loaded);
  assert.deepEqual(Object.keys(lazy).sort(), Object.keys(eager).sort());
  const getters = Object.keys(lazy).filter((k) => Object.getOwnPropertyDescriptor(lazy, k)?.get !== undefined);
  const schemas = Object.entries(eager)
    .filter(([, v]) => isSchema(v))
    .map(([k]) => k);
  assert.deepEqual(getters.sort(), schemas.sort(), 'every schema, and only they, waits to be read');
  assert.deepEqual(loaded, [], 'zod is loaded with the first schema');
  assert.equal((lazy.ErrorCode as Record<string, number>).MethodNotFound, -32601);
  assert.deepEqual(loaded, [], 'constants and enums need no zod');
  const once = lazy.InitializeRequestSchema;
  assert.deepEqual(loaded, ['zod/v4']);
  assert.ok(isSchema(once));
  assert.equal(lazy.InitializeRequestSchema, once, 'built once, then a plain value');
  assert.equal(lazy.JSONRPCErrorSchema, lazy.JSONRPCErrorResponseSchema, 'an alias is the same schema');
});

test('every export as the original: constants, functions, classes, and schemas that parse alike', () => {
  const lazy = load();
  const samples: unknown[] = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'c', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { cursor: 'x', _meta: { progressToken: 3 } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_task', arguments: { id: 1 }, extra: [1] } },
    { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } } },
    { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'bad', data: { x: 1 } } },
    { method: 'resources/read', params: { uri: 'ralph://tasks/1' } },
    { tools: [{ name: 't', inputSchema: { type: 'object' } }] },
    { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } },
    { type: 'text', text: 'hello' },
    { jsonrpc: '1.0', id: null },
    'text',
    42,
    null,
    [],
  ];
  let schemas = 0;
  for (const [name, want] of Object.entries(eager)) {
    const got = lazy[name];
    assert.equal(typeof got, typeof want, name);
    if (typeof want === 'function') assert.equal((got as () => void).name, want.name, name);
    else if (isSchema(want)) {
      schemas++;
      assert.ok(isSchema(got), name);
      assert.equal(got._zod.def.type, want._zod.def.type, name);
      for (const s of samples) {
        const a: { success: boolean; data?: unknown } = want.safeParse(s);
        const b: { success: boolean; data?: unknown } = got.safeParse(s);
        assert.equal(b.success, a.success, `${name} on ${JSON.stringify(s)}`);
        assert.deepEqual(b.data, a.data, `${name} on ${JSON.stringify(s)}`);
      }
    } else assert.deepEqual(got, want, name);
  }
  assert.ok(schemas > 150, `${schemas} schemas compared`);
  assert.equal((lazy.ErrorCode as Record<string, number>).InvalidParams, -32602);
  const err = new (lazy.McpError as new (c: number, m: string) => Error)(-32602, 'x');
  assert.equal(err.message, 'MCP error -32602: x');
});

test('a file it does not know how to rewrite fails the build rather than change meaning', () => {
  const head = "import * as z from 'zod/v4';\n";
  assert.throws(() => rewriteTypes(`${head}if (globalThis.x) {}\n`), /unexpected statement/);
  assert.throws(
    () => rewriteTypes(`${head}const A = z.string();\nfunction f(A) { return A; }\n`),
    /hides the top-level one/,
  );
  assert.throws(() => rewriteTypes("import { z } from 'zod';\n"), /unexpected import/);
});
