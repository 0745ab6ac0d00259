import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineTool, once, READ } from '../../src/toolkit/tool.js';
import { REGISTRY } from '../../src/registry/registry.js';

// Tools are written with their schemas as functions, made on first use: a session pays for the schemas
// of the tools it calls, not for the whole registry's (src/toolkit/tool.ts).

test('defineTool makes a schema on first use, once, and each of input and output on its own', () => {
  const made = { input: 0, output: 0 };
  const tool = defineTool({
    name: 'probe',
    title: 'Probe',
    category: 'project',
    description: 'A probe',
    input: () => {
      made.input++;
      return z.strictObject({ id: z.number().int() });
    },
    output: () => {
      made.output++;
      return z.object({ ok: z.boolean() });
    },
    annotations: READ,
    handler: () => ({ ok: true }),
  });
  assert.deepEqual(made, { input: 0, output: 0 }, 'nothing is made by defining the tool');
  assert.equal(tool.input.safeParse({ id: 1 }).success, true);
  assert.equal(tool.input.safeParse({ id: 'x' }).success, false);
  assert.strictEqual(tool.input, tool.input, 'the same schema every time');
  assert.deepEqual(made, { input: 1, output: 0 }, 'the input alone was made, once');
  assert.ok(tool.output.shape.ok);
  assert.deepEqual(made, { input: 1, output: 1 });
  const keys = Object.keys(tool).sort();
  assert.deepEqual(keys, ['annotations', 'category', 'description', 'handler', 'input', 'name', 'output', 'title']);
});

test('once makes its value on the first call and returns that value after', () => {
  let calls = 0;
  const value = once(() => ({ n: ++calls }));
  assert.equal(calls, 0);
  const first = value();
  assert.strictEqual(value(), first);
  assert.equal(calls, 1);
});

test("every registered tool's schemas are made on demand and are zod objects", () => {
  for (const tool of REGISTRY)
    for (const part of ['input', 'output'] as const) {
      const made = Object.getOwnPropertyDescriptor(tool, part)?.get;
      assert.equal(typeof made, 'function', `${tool.name}: ${part} is made on first use`);
      assert.ok(tool[part] instanceof z.ZodObject, tool.name);
    }
});
