import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, CallToolResult, ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { ANSWER_MAX_CHARS, answerText } from '../domain/answers.js';
import { StartupError } from '../domain/errors.js';
import { AFTER_ANSWERED } from '../domain/signals.js';
import type { Session } from '../session/session.js';
import { okResult } from '../session/toolResult.js';
import type { Question } from '../store/records.js';

/**
 * A blocking `ask` put to the person at once, through the client's form (MCP elicitation), when the
 * client declared it can show one. The question's own write has committed before anything is sent; an
 * accepted, valid answer is then written as `ralph-mcp answer` writes it (Session.recordAnswer) and
 * returned to the agent. Anything else (declined, cancelled, timed out, an invalid answer, a client
 * without forms) leaves the question open for Ralph's app and the agent today's result.
 */

/** Seconds to wait for the person; 0 never asks in the client. */
export const ASK_SECONDS_ENV = 'RALPH_MCP_ASK_SECONDS';
/**
 * Five minutes: a person at the client answers a question in that time or is away, and then Ralph's
 * app is the better place (the agent stops, as a blocking ask says). Never more than half the session's
 * lease, so a claimed task is not taken over while its agent waits.
 */
export const ASK_SECONDS_DEFAULT = 300;
const ASK_SECONDS_MAX = 3600;

/** RALPH_MCP_ASK_SECONDS, else the default; a malformed value fails the launch. */
export function askSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[ASK_SECONDS_ENV];
  if (raw === undefined || raw.trim() === '') return ASK_SECONDS_DEFAULT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > ASK_SECONDS_MAX)
    throw new StartupError(
      `${ASK_SECONDS_ENV} must be a whole number of seconds from 0 (never ask in the client) to ${ASK_SECONDS_MAX}, got ${JSON.stringify(raw)}`,
    );
  return n;
}

/** How long this session waits for the person, in ms (0: it never asks). */
export const askTimeoutMs = (seconds: number, leaseMs: number): number =>
  Math.min(seconds * 1000, Math.floor(leaseMs / 2));

/**
 * Whether this call will be put to the person: decided before the call runs, so that the line
 * transports' shortcut leaves it to the SDK (transport/directCalls.ts), whose request handling gives it
 * cancellation and, over HTTP, the call's own stream.
 */
export function asksPerson(
  server: Server,
  session: Session,
  timeoutMs: number,
  { name, arguments: args }: CallToolRequest['params'],
): boolean {
  return (
    name === 'ask' &&
    args?.blocking === true &&
    timeoutMs > 0 &&
    session.ctx.forward === undefined && // Ralph's app is then the only writer
    server.getClientCapabilities()?.elicitation?.form !== undefined &&
    session.visibleTool('ask') !== undefined
  );
}

interface AskAnswer {
  task_id: number;
  signal_id: number | null;
  [k: string]: unknown;
}

/**
 * After the ask's write committed: the question to the person, their answer recorded and returned, or
 * `result` unchanged. Never rejects.
 */
export async function askInClient(
  server: Server,
  session: Session,
  result: CallToolResult,
  request: RequestOptions,
): Promise<CallToolResult> {
  const out = result.structuredContent as AskAnswer;
  const log = session.ctx.log;
  const q = out.signal_id === null ? undefined : questionOf(session, out.task_id, out.signal_id);
  if (!q) return result;
  let reply: Awaited<ReturnType<Server['elicitInput']>>;
  try {
    reply = await server.elicitInput(formFor(q), request);
  } catch (err) {
    // A timeout, a cancelled call, a closed connection, or content the SDK found off the schema.
    log.info({ question: q.id, reason: (err as Error).message }, 'question not answered in the client; left open');
    return result;
  }
  if (reply.action !== 'accept') {
    log.info({ question: q.id, action: reply.action }, 'question not answered in the client; left open');
    return result;
  }
  const answer = checkedAnswer(q, reply.content?.answer);
  if ('problem' in answer) {
    log.warn({ question: q.id, problem: answer.problem }, "client's answer refused; question left open");
    return result;
  }
  // The session's tools may have changed while the person read (a claim's discipline hides ask).
  if (session.visibleTool('ask') === undefined) return result;
  try {
    if (!session.recordAnswer(q.id, answer.text)) return result; // the question is gone (its task deleted)
  } catch (err) {
    log.warn({ err, question: q.id }, "could not record the client's answer; question left open");
    return result;
  }
  return okResult({ ...out, answer: answer.text, next: AFTER_ANSWERED });
}

function questionOf(session: Session, taskId: number, id: number): Question | undefined {
  // A point read: a task may hold thousands of questions, each up to 20,000 characters.
  const q = session.store.signals.question(id);
  return q?.task_id === taskId ? q : undefined;
}

/** The form: one field, `answer`; the question's options as an enum (its preferred one first chosen). */
export function formFor(q: Question): ElicitRequestFormParams {
  const lines = [`An agent working on task #${q.task_id} asks:`, q.question];
  if (q.preferred !== null) lines.push(`Its recommendation: ${q.preferred}`);
  const field =
    q.options.length > 0
      ? {
          type: 'string' as const,
          title: 'Answer',
          enum: q.options,
          ...(q.preferred !== null && q.options.includes(q.preferred) && { default: q.preferred }),
        }
      : { type: 'string' as const, title: 'Answer', minLength: 1, maxLength: ANSWER_MAX_CHARS };
  return {
    mode: 'form',
    message: lines.join('\n\n'),
    requestedSchema: { type: 'object', properties: { answer: field }, required: ['answer'] },
  };
}

/**
 * The answer as `ralph-mcp answer` takes it, and, when the question offered options, one of them: a
 * person who wants another answer declines and gives it in Ralph's app.
 */
export function checkedAnswer(q: Question, raw: unknown): { text: string } | { problem: string } {
  const answer = answerText(raw);
  if ('problem' in answer) return { problem: `answer ${answer.problem}` };
  if (q.options.length > 0 && !q.options.includes(answer.text))
    return { problem: `answer must be one of the question's ${q.options.length} options` };
  return answer;
}
