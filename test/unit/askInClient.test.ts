import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StartupError } from '../../src/domain/errors.js';
import { askSeconds, askTimeoutMs, checkedAnswer, formFor } from '../../src/server/askInClient.js';
import { formValidator } from '../../src/server/formValidator.js';
import type { Question } from '../../src/store/records.js';

/** The rules of an ask put to the person in the client (server/askInClient.ts) that need no session. */
const ASKED = { id: 1, task_id: 3, question: 'Grams or ounces?', preferred: 'ounces', blocking: true };
const question = (options: string[]): Question => ({ ...ASKED, options, answer: null, session_id: 's', created: null });

test('RALPH_MCP_ASK_SECONDS: default five minutes, 0 turns it off, anything else malformed fails the launch', () => {
  assert.equal(askSeconds({}), 300);
  assert.equal(askSeconds({ RALPH_MCP_ASK_SECONDS: ' 0 ' }), 0);
  assert.equal(askSeconds({ RALPH_MCP_ASK_SECONDS: '45' }), 45);
  for (const bad of ['-1', '1.5', 'soon', '3601'])
    assert.throws(() => askSeconds({ RALPH_MCP_ASK_SECONDS: bad }), StartupError, bad);
  // Never longer than half the lease: a claimed task is not taken over while its agent waits.
  assert.equal(askTimeoutMs(300, 900_000), 300_000);
  assert.equal(askTimeoutMs(300, 60_000), 30_000);
});

test('an answer: trimmed, not empty, within the limit, one of the options when there are some', () => {
  assert.deepEqual(checkedAnswer(question([]), '  metric '), { text: 'metric' });
  assert.deepEqual(checkedAnswer(question(['grams', 'ounces']), 'ounces'), { text: 'ounces' });
  for (const [q, raw] of [
    [question(['grams', 'ounces']), 'pounds'],
    [question([]), '   '],
    [question([]), 'x'.repeat(20_001)],
    [question([]), 7],
    [question([]), undefined],
  ] as const)
    assert.ok('problem' in checkedAnswer(q, raw), String(raw).slice(0, 20));
});

test("the server's form checker accepts what the form allows, and only that", () => {
  for (const q of [question(['grams', 'ounces']), question([])]) {
    const check = formValidator.getValidator(formFor(q).requestedSchema as never);
    assert.equal(check({ answer: 'ounces' }).valid, true);
    for (const bad of [{}, { answer: 3 }, null, [], { answer: q.options.length ? 'pounds' : '' }])
      assert.equal(check(bad).valid, false, JSON.stringify(bad));
  }
  const enumField = formFor(question(['grams', 'ounces'])).requestedSchema.properties.answer;
  assert.equal((enumField as { default?: string }).default, 'ounces', 'the recommendation is chosen first');
});
