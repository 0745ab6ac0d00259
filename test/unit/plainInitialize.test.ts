import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { readLine } from '../../src/transport/jsonRpcLine.js';
import { isPlainInitialize } from '../../src/transport/plainInitialize.js';

// The initialize requests answered before the SDK's Server exists (transport/sdkOnDemand.ts) and read
// without its schema (transport/jsonRpcLine.ts) must be ones that schema accepts, or the session would
// answer what the SDK refuses. The usual ones must be taken, or nothing is gained.
const init = (params: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'initialize', params });
const client = { name: 'claude-code', version: '2.1.280' };

test('the initialize requests clients send are taken by hand, and the schema accepts each', () => {
  const usual = [
    { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ralph-mcp-bench', version: '0.0.0' } },
    { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: client },
    {
      protocolVersion: '2025-06-18',
      capabilities: { roots: { listChanged: true }, elicitation: {} },
      clientInfo: client,
    },
    {
      protocolVersion: '2025-11-25',
      capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
      clientInfo: { name: 'inspector', title: 'MCP Inspector', version: '0.17.0' },
    },
    { protocolVersion: '1999-01-01', capabilities: { experimental: { x: {} }, extensions: {} }, clientInfo: client },
  ];
  for (const params of usual) {
    const m = init(params);
    assert.ok(isPlainInitialize(m), JSON.stringify(params));
    assert.ok(InitializeRequestSchema.safeParse(m).success, JSON.stringify(params));
  }
});

test('anything else is left to the schema, which words what is wrong', () => {
  const other = [
    { protocolVersion: 1, capabilities: {}, clientInfo: client },
    { protocolVersion: '2025-06-18', clientInfo: client },
    { protocolVersion: '2025-06-18', capabilities: {} },
    { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: 'yes' } }, clientInfo: client },
    { protocolVersion: '2025-06-18', capabilities: { elicitation: [] }, clientInfo: client },
    { protocolVersion: '2025-06-18', capabilities: { tasks: {} }, clientInfo: client },
    { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { ...client, icons: [{ src: 'x' }] } },
    { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client, _meta: { progressToken: 1 } },
    { protocolVersion: '2025-06-18', capabilities: null, clientInfo: client },
  ];
  for (const params of other) assert.equal(isPlainInitialize(init(params)), false, JSON.stringify(params));
  // readLine still answers a refused one as before: Invalid params, naming the field.
  const refused = readLine(Buffer.from(JSON.stringify(init(other[0]))));
  assert.ok(refused && 'answer' in refused && refused.answer === -32602, JSON.stringify(refused));
  assert.match((refused as { reason: string }).reason, /protocolVersion/);
});

test('whatever it takes by hand, the schema accepts (fast-check)', () => {
  const json = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string(), fc.constant([]), fc.constant({}));
  /** Mostly `a`, sometimes any JSON value. */
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.oneof({ arbitrary: a, weight: 4 }, { arbitrary: json, weight: 1 });
  /** Mostly absent (dropped by the JSON round trip below), sometimes `a`. */
  const rarely = (a: fc.Arbitrary<unknown>) =>
    fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: a, weight: 1 });
  const sometimes = (a: fc.Arbitrary<unknown>) =>
    fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: a, weight: 1 });
  const objOf = (values: fc.Arbitrary<unknown>) => fc.dictionary(fc.string({ maxLength: 4 }), values, { maxKeys: 3 });
  const capabilities = fc.record({
    experimental: sometimes(maybe(objOf(maybe(fc.constant({}))))),
    extensions: sometimes(maybe(objOf(maybe(fc.constant({ a: 1 }))))),
    sampling: sometimes(maybe(fc.record({ context: sometimes(maybe(fc.constant({}))), tools: rarely(json) }))),
    elicitation: sometimes(
      maybe(
        fc.record({
          form: sometimes(maybe(fc.record({ applyDefaults: sometimes(maybe(fc.boolean())) }))),
          url: sometimes(maybe(fc.constant({}))),
        }),
      ),
    ),
    roots: sometimes(maybe(fc.record({ listChanged: sometimes(maybe(fc.boolean())) }))),
    tasks: rarely(json),
    other: rarely(json),
  });
  const clientInfo = fc.record({
    name: maybe(fc.string()),
    version: maybe(fc.string()),
    title: sometimes(maybe(fc.string())),
    websiteUrl: rarely(maybe(fc.string())),
    description: rarely(maybe(fc.string())),
    icons: rarely(json),
  });
  const params = fc.record({
    protocolVersion: maybe(fc.string()),
    capabilities: maybe(capabilities),
    clientInfo: maybe(clientInfo),
    _meta: rarely(json),
  });
  let taken = 0;
  fc.assert(
    fc.property(params, (p) => {
      const m = JSON.parse(JSON.stringify(init(p))) as unknown;
      if (!isPlainInitialize(m)) return true;
      taken++;
      return InitializeRequestSchema.safeParse(m).success;
    }),
    { seed: 0x1a17, numRuns: 4000 },
  );
  assert.ok(taken > 100, `only ${taken} cases were taken by hand: the generator misses the plain form`);
});
