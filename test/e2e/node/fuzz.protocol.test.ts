import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineServer, protocolFuzz, type ProtocolReport } from '../../../scripts/stress/fuzz.js';
import { sampleProject } from '../../helpers/project.js';
import { ALL_TOOLS, RECIPE_TOOLS, inSpecOrder } from '../../helpers/spec.js';

/**
 * Issue 7, protocol: hostile bytes on stdio never crash the server, never put anything but JSON-RPC
 * on stdout, and never cost a well-formed request its answer. The fast version of
 * `npm run stress` (scripts/stress/fuzz.ts holds the generators and the checks).
 */

const report = (r: ProtocolReport) =>
  `${r.hostileLines} hostile lines, ${r.wellFormed} well-formed requests, ${r.idless} id-less error answers, ${r.seconds.toFixed(1)} s`;

function assertClean(r: ProtocolReport): void {
  assert.deepEqual(r.junk, [], 'nothing but JSON-RPC on stdout');
  assert.equal(r.crashed, false, 'the server is still running at the end');
  assert.deepEqual(r.failures, [], `${r.failures.length} failure(s):\n${r.failures.slice(0, 20).join('\n')}`);
}

describe('stdio protocol fuzz', () => {
  test('full suite: every kind of bad line, a 6 MB line, an 11 MB line, deep nesting, a flood of 2,000', async (t) => {
    const r = await protocolFuzz(sampleProject(), {
      toolCount: inSpecOrder(ALL_TOOLS, 'legacy').length, // the sample is legacy
      seed: 0x7a11,
      randomHostile: 400,
      interleaved: 300,
      flood: 2000,
      fixed: { hugeBytes: 6 * 1024 * 1024, oversizeBytes: 11 * 1024 * 1024, deepDepth: 100_000 },
    });
    t.diagnostic(report(r));
    assertClean(r);
    assert.ok(r.hostileLines >= 450 && r.wellFormed === 2300);
  });

  test('recipe session (yap): the same, and a hidden tool is an unknown one', async (t) => {
    const r = await protocolFuzz(sampleProject(), {
      flags: ['--recipe', 'yap'],
      toolCount: inSpecOrder(RECIPE_TOOLS.yap!, 'legacy').length,
      hidden: 'delete_task',
      seed: 0xbeef,
      randomHostile: 250,
      interleaved: 200,
      flood: 1000,
      fixed: { hugeBytes: 0, oversizeBytes: 11 * 1024 * 1024, deepDepth: 10_000 },
    });
    t.diagnostic(report(r));
    assertClean(r);
  });

  test('each bad line gets its JSON-RPC error, in order, and the next request its answer', async () => {
    const s = await LineServer.start(sampleProject());
    try {
      const cases: [string, string | Buffer, number, unknown?][] = [
        ['not JSON', 'hello\n', -32700],
        ['invalid UTF-8 and NUL bytes', Buffer.from([0xc3, 0x28, 0x00, 0xff, 0x0a]), -32700],
        ['a batch', '[{"jsonrpc":"2.0","id":"b1","method":"ping"}]\n', -32600],
        ['a JSON number', '7\n', -32600],
        ['a float id', '{"jsonrpc":"2.0","id":0.5,"method":"ping"}\n', -32600],
        ['wrong jsonrpc, usable id', '{"jsonrpc":"1.0","id":"v1","method":"ping"}\n', -32600, 'v1'],
        ['no method', '{"jsonrpc":"2.0","id":"m1"}\n', -32600, 'm1'],
        ['unknown member', '{"jsonrpc":"2.0","id":"x1","method":"ping","x":1}\n', -32600, 'x1'],
        ['unknown method', '{"jsonrpc":"2.0","id":"u1","method":"frobnicate"}\n', -32601, 'u1'],
        [
          'notification method with an id',
          '{"jsonrpc":"2.0","id":"n1","method":"notifications/initialized"}\n',
          -32601,
          'n1',
        ],
        [
          'tools/call, arguments a string',
          '{"jsonrpc":"2.0","id":"p1","method":"tools/call","params":{"name":"get_task","arguments":"1"}}\n',
          -32602,
          'p1',
        ],
        [
          'resources/read without a uri',
          '{"jsonrpc":"2.0","id":"p2","method":"resources/read","params":{}}\n',
          -32602,
          'p2',
        ],
        [
          'a line over 10 MiB',
          `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"${'z'.repeat(10 * 1024 * 1024)}"}}\n`,
          -32600,
        ],
      ];
      for (const [what, line, code, id] of cases) {
        const idless = s.idless;
        s.write(line);
        const ping = await s.request('ping', {}, 10_000);
        assert.deepEqual(ping?.result, {}, `${what}: the next ping is answered`);
        if (id === undefined) {
          assert.equal(s.idless, idless + 1, `${what}: one error answer without an id`);
          assert.equal(s.idlessErrors.at(-1)?.code, code, `${what}: ${JSON.stringify(s.idlessErrors.at(-1))}`);
        } else {
          const answers = s.answers.get(JSON.stringify(id)) ?? [];
          assert.equal(answers.length, 1, `${what}: one answer with its id`);
          assert.equal(answers[0].error?.code, code, `${what}: ${JSON.stringify(answers[0])}`);
          assert.ok(answers[0].error.message.length > 0, `${what}: a message`);
        }
      }
      assert.match(
        s.answers.get('"p2"')![0].error.message,
        /^Invalid params for resources\/read: params\.uri: /,
        'invalid params name the field',
      );
      assert.match(s.answers.get('"x1"')![0].error.message, /unknown member\(s\) "x"/);
      assert.equal(s.answers.has('"big"'), false, 'the oversized line was never read');
      assert.equal(s.answers.has('"b1"'), false, 'batches are refused as a whole');
      const last = await s.request('tools/call', { name: 'get_task', arguments: { id: 1 } });
      assert.equal(last?.result?.structuredContent?.task?.id, 1, 'a real tool call still works');
      assert.deepEqual(s.junk, []);
      assert.equal(s.crashed, false);
    } finally {
      const exit = await s.close();
      assert.equal(exit.code, 0, `clean exit when stdin closes:\n${s.stderr()}`);
    }
  });
});
