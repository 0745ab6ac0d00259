import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { answerQuestion } from '../../src/cli/answer.js';
import type { Project } from '../../src/domain/project.js';
import { AFTER, AFTER_ANSWERED } from '../../src/domain/signals.js';
import { contract, type ContractEnv, type InProcSession } from './harness.js';
import { query } from '../helpers/project.js';

/**
 * A blocking ask put to the person in the client (MCP elicitation, server/askInClient.ts), through the
 * SDK's own Client declaring `elicitation` and answering `elicitation/create`: an accepted answer is the
 * row `ralph-mcp answer` writes (compared with one that code wrote) and comes back in the tool result;
 * declined, cancelled, timed out, refused as invalid, or a client that cannot show a form: today's result,
 * the question left open.
 */

type Row = Record<string, unknown>;
type Reply = (req: ElicitRequest, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>;
type Form = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
const TASK = 3;
const QUESTION = { question: 'Grams or ounces?', options: ['grams', 'ounces'], preferred: 'grams', blocking: true };
const grams = (): ElicitResult => ({ action: 'accept', content: { answer: 'grams' } });

/** A signals session on TASK whose client answers elicitation/create with `reply`; `asked` lists what it was sent. */
async function asker(env: ContractEnv, p: Project, reply?: Reply, askTimeoutMs?: number) {
  const asked: ElicitRequest['params'][] = [];
  const s = await env.open({ recipe: 'signals', task: TASK, sessionId: 'ask-client' }, p, {
    ...(reply && { capabilities: { elicitation: {} } }),
    prepareClient: (client: Client) => {
      if (reply)
        client.setRequestHandler(ElicitRequestSchema, (req, extra) => {
          asked.push(req.params);
          return reply(req, extra.signal);
        });
      // Whatever else the server asks of the client (an elicitation it did not declare) is seen here.
      client.fallbackRequestHandler = async (req) => {
        asked.push(req.params as ElicitRequest['params']);
        throw new Error(`unexpected ${req.method}`);
      };
    },
    ...(askTimeoutMs !== undefined && { server: { askTimeoutMs } }),
  });
  return { s, asked };
}

/** The question's row as Ralph reads it (legacy: ours, with the comment a person sees), less what differs per row. */
function questionRow(env: ContractEnv, p: Project, id: number): Row {
  const [row] =
    env.generation === 'normalized'
      ? query(p, 'SELECT * FROM task_signals WHERE id = ?', id)
      : query(
          p,
          'SELECT s.*, c.body FROM ralph_mcp_task_signals s LEFT JOIN task_comments c ON c.id = s.comment_id WHERE s.id = ?',
          id,
        );
  const { id: _i, created: _c, session_id: _s, comment_id: _m, ...rest } = row as Row;
  return rest;
}

const answerOf = async (reader: InProcSession, id: number): Promise<string | null> =>
  (await reader.ok('get_answers', {})).questions.find((q: Row) => q.id === id).answer;

/** What an ask answers today: recorded, the person answers later. */
function today(out: Row): void {
  assert.equal(out.next, AFTER.ask);
  assert.equal('answer' in out, false, 'no answer in the result');
}

contract('ask in the client (elicitation)', (env) => {
  test('accept: the row `ralph-mcp answer` writes, in the result and in get_answers', async () => {
    const p = env.sample();
    const { s, asked } = await asker(env, p, grams);
    const out = await s.ok('ask', QUESTION);
    assert.deepEqual([out.answer, out.next, out.task_id], ['grams', AFTER_ANSWERED, TASK]);
    // The form: the question, the recommendation, the options as an enum with the preferred one chosen.
    assert.equal(asked.length, 1);
    const form = asked[0] as Form;
    assert.match(form.message, /task #3 asks:\n\nGrams or ounces\?\n\nIts recommendation: grams/);
    assert.deepEqual(form.requestedSchema, {
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', enum: ['grams', 'ounces'], default: 'grams' } },
      required: ['answer'],
    });

    // The same question answered by `ralph-mcp answer` (src/cli/answer.ts) leaves the same row.
    const { s: plain } = await asker(env, p);
    const other = await plain.ok('ask', QUESTION);
    today(other);
    answerQuestion(p.root, undefined, other.signal_id, ' grams ');
    assert.deepEqual(questionRow(env, p, out.signal_id), questionRow(env, p, other.signal_id));
    assert.equal(questionRow(env, p, out.signal_id).answer, 'grams');

    const reader = await env.open({ recipe: 'task_execution', task: TASK }, p);
    assert.equal(await answerOf(reader, out.signal_id), 'grams');
    // One audit row for the answer, in its own transaction after the question's.
    assert.deepEqual(
      query(p, "SELECT tool, outcome, arguments FROM ralph_mcp_audit WHERE session_id = 'ask-client' ORDER BY id"),
      [
        { tool: 'ask', outcome: 'ok', arguments: JSON.stringify(QUESTION) },
        {
          tool: 'ask',
          outcome: 'answered',
          arguments: JSON.stringify({ question_id: out.signal_id, answer: 'grams' }),
        },
        { tool: 'ask', outcome: 'ok', arguments: JSON.stringify(QUESTION) },
      ],
    );
  });

  test('accept without options: free text, trimmed, at most the answer limit', async () => {
    const p = env.sample();
    const { s, asked } = await asker(env, p, () => ({ action: 'accept', content: { answer: '  Metric only  ' } }));
    const out = await s.ok('ask', { question: 'Which units?', blocking: true });
    assert.equal(out.answer, 'Metric only');
    const answer = { type: 'string', title: 'Answer', minLength: 1, maxLength: 20_000 };
    assert.deepEqual((asked[0] as Form).requestedSchema.properties.answer, answer);
    const reader = await env.open({ recipe: 'task_execution', task: TASK }, p);
    assert.equal(await answerOf(reader, out.signal_id), 'Metric only');
  });

  // A client that never answers answers only once told the request was cancelled (the SDK's client ignores a
  // cancel of request id 0): the server's wait (50 ms here) ends it.
  const never: Reply = (_req, signal) =>
    new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' })));
  const unanswered: [string, Reply, number?][] = [
    ['decline', () => ({ action: 'decline' })],
    ['cancel', () => ({ action: 'cancel' })],
    ['a client that never answers: the wait ends', never, 50],
  ];
  for (const [what, reply, askTimeoutMs] of unanswered)
    test(`${what}: today's result, the question stays open`, async () => {
      const p = env.sample();
      const { s, asked } = await asker(env, p, reply, askTimeoutMs);
      const out = await s.ok('ask', QUESTION);
      today(out);
      assert.equal(asked.length, 1);
      const reader = await env.open({ recipe: 'task_execution', task: TASK }, p);
      assert.equal(await answerOf(reader, out.signal_id), null);
    });

  test('a client without the capability is never asked; a non-blocking ask is never put to the person', async () => {
    const p = env.sample();
    const { s, asked } = await asker(env, p);
    today(await s.ok('ask', QUESTION));
    const { s: capable, asked: askedCapable } = await asker(env, p, grams);
    today(await capable.ok('ask', { ...QUESTION, blocking: false }));
    assert.deepEqual([asked, askedCapable], [[], []]);
  });

  test('hostile answers are refused as `ralph-mcp answer` refuses them: the question stays open', async () => {
    const p = env.sample();
    const replies: [Row, Row][] = [
      [QUESTION, { answer: 42 }], // wrong type
      [QUESTION, { answer: 'pounds' }], // not one of the options
      [QUESTION, {}], // no answer
      [{ question: 'Which units?', blocking: true }, { answer: '   ' }], // empty once trimmed
      [{ question: 'Which units?', blocking: true }, { answer: 'x'.repeat(20_001) }], // too long
    ];
    let content: Row = {};
    const { s } = await asker(env, p, () => ({ action: 'accept', content }) as ElicitResult);
    const reader = await env.open({ recipe: 'task_execution', task: TASK }, p);
    for (const [args, reply] of replies) {
      content = reply;
      const out = await s.ok('ask', args);
      today(out);
      assert.equal(await answerOf(reader, out.signal_id), null, JSON.stringify(reply).slice(0, 40));
    }
    assert.deepEqual(
      query(p, "SELECT count(*) AS n FROM ralph_mcp_audit WHERE session_id = 'ask-client' AND outcome = 'answered'"),
      [{ n: 0 }],
    );
  });

  test('a hidden ask asks nobody', async () => {
    const p = env.sample();
    const asked: unknown[] = [];
    const s = await env.open({ recipe: 'task_execution', task: TASK }, p, {
      capabilities: { elicitation: {} },
      prepareClient: (client) =>
        client.setRequestHandler(ElicitRequestSchema, (req) => {
          asked.push(req.params);
          return grams();
        }),
    });
    assert.equal((await s.toolNames()).includes('ask'), false);
    await assert.rejects(s.call('ask', QUESTION), /Unknown tool: ask/);
    assert.deepEqual(asked, []);
  });
});
