import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallToolRequestSchema, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isPlainToolCall } from '../../src/transport/directCalls.js';
import { isPlainNotification, isPlainRequest, readLine } from '../../src/transport/jsonRpcLine.js';
import { errorResult, okResult } from '../../src/session/toolResult.js';
import { wireLine } from '../../src/transport/wire.js';
import { ToolError } from '../../src/domain/errors.js';

// The per-call shortcuts must be invisible: the line written is byte for byte what JSON.stringify
// writes, and a message taken without zod is one the SDK's schema would have taken as it is.
const reply = (id: number | string, result: unknown) => ({ result, jsonrpc: '2.0', id }) as JSONRPCMessage;
const awkward = {
  title: 'quotes " and \\ backslashes\nnewline\ttab',
  emoji: '🦀 and \u2028 line separator',
  n: [1, 2.5, -0, null],
  nested: { deep: { deeper: [] } },
};

test('wireLine: okResult replies (spliced), errors, requests and changed results equal JSON.stringify', () => {
  const changed = okResult({ a: 1 });
  (changed.structuredContent as Record<string, unknown>).a = 2; // the text no longer matches: never spliced
  changed.content = [{ type: 'text', text: 'other' }];
  const messages = [
    reply(3, errorResult(new ToolError('not_found', 'task 9 does not exist'))),
    { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Unknown tool: x' } },
    { jsonrpc: '2.0', id: 5, method: 'ping' },
    reply(6, changed),
    reply(7, { ...okResult({ a: 1 }), _meta: { x: 1 } }),
    ...[1, 0, 2 ** 53 - 1, 'abc', 'quote"id'].map((id) => reply(id, okResult(awkward))),
  ] as JSONRPCMessage[];
  for (const m of messages) assert.equal(wireLine(m), `${JSON.stringify(m)}\n`);
});

test('isPlainRequest takes only requests JSONRPCMessageSchema accepts, unchanged', () => {
  const candidates: unknown[] = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_task', arguments: { id: 1 } } },
    { jsonrpc: '2.0', id: 'x', method: 'ping' },
    { jsonrpc: '2.0', id: 1.5, method: 'ping' },
    { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
    { jsonrpc: '2.0', id: null, method: 'ping' },
    { jsonrpc: '1.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
    { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { progressToken: {} } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, result: {} },
    JSON.parse(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"__proto__":{"x":1}}}}',
    ),
    [],
    null,
    'text',
  ];
  const taken = candidates.filter(isPlainRequest);
  assert.equal(taken.length, 3, 'the plain requests are taken');
  for (const c of taken) assert.ok(JSONRPCMessageSchema.safeParse(c).success, `schema refuses ${JSON.stringify(c)}`);
});

test('isPlainNotification takes only notifications JSONRPCMessageSchema accepts, unchanged', () => {
  const candidates: unknown[] = [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'x' } },
    { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: {} } },
    { jsonrpc: '2.0', method: 'notifications/initialized', params: [] },
    { jsonrpc: '2.0', method: 'notifications/initialized', params: null },
    { jsonrpc: '2.0', method: 'notifications/initialized', extra: 1 },
    { jsonrpc: '1.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 3 },
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: undefined, method: 'ping' },
    { jsonrpc: '2.0', result: {} },
    [],
    null,
  ];
  const taken = candidates.filter(isPlainNotification);
  assert.equal(taken.length, 2, 'the plain notifications are taken');
  for (const c of taken) assert.ok(JSONRPCMessageSchema.safeParse(c).success, `schema refuses ${JSON.stringify(c)}`);
});

test('isPlainToolCall takes only tools/call requests CallToolRequestSchema accepts', () => {
  const call = (params?: object, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
  const calls: unknown[] = [
    call({ name: 'get_task', arguments: { id: 1 } }),
    call({ name: 'get_task' }),
    call({ name: 'get_task', arguments: 'x' }),
    call({ name: 'get_task', arguments: [1] }),
    call({ name: 3 }),
    call({ name: 'a', arguments: {}, _meta: { progressToken: 1 } }),
    call({ name: 'a', task: { ttl: 1 } }),
    call(),
    call({ name: 'get_task' }, null),
  ];
  const taken = calls.filter(isPlainToolCall);
  assert.equal(taken.length, 2);
  for (const c of taken) assert.ok(CallToolRequestSchema.safeParse(c).success, JSON.stringify(c));
});

test('readLine: a method named like an Object member is a message like any other, never a crash', () => {
  for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method }));
    assert.deepEqual(readLine(line), { message: { jsonrpc: '2.0', id: 1, method } }, method);
  }
});
