import { StartupError, ToolError } from '../domain/errors.js';
import type { SignalPayload, Verb } from '../domain/signals.js';

/**
 * Ralph's local API, as its own signal server uses it: `POST /api/set-db-path {db_path}` once at start,
 * then `POST /api/task-signal {task_id, session_id, verb, payload}` per signal. Ralph's app writes the
 * row and raises its UI events; we write nothing ourselves (never both: each signal would be recorded
 * twice). It answers `{"success": true, …}`, `{"error": "…"}`, or plain text (axum's 4xx for a body it
 * cannot read): every one becomes a clear tool result, never a crash or raw body dump.
 */

const TIMEOUT_MS = 10_000;
/** An error body is read up to this size; a message is shown up to 500 characters. */
const MAX_BODY = 64 * 1024;

export class RalphApi {
  readonly base: string;

  constructor(
    readonly port: number,
    private readonly dbPath: string,
    private readonly sessionId: string,
  ) {
    this.base = `http://127.0.0.1:${port}`;
  }

  /** Tells Ralph's app which database the signals are for; a launch it refuses fails closed. */
  async start(): Promise<void> {
    try {
      const res = await this.post('/api/set-db-path', { db_path: this.dbPath });
      if (isRedirect(res)) throw new Error(redirectText(res));
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${await errorText(res)}`);
    } catch (err) {
      throw new StartupError(
        `RALPH_API_PORT=${this.port}: Ralph's app did not accept /api/set-db-path (${describe(err)}); is Ralph running?`,
      );
    }
  }

  /** One signal; throws a ToolError saying what Ralph's app answered when it did not record it. */
  async send(taskId: number, verb: Verb, payload: SignalPayload): Promise<void> {
    let res: Response;
    try {
      res = await this.post('/api/task-signal', { task_id: taskId, session_id: this.sessionId, verb, payload });
    } catch (err) {
      throw new ToolError(
        'unavailable',
        `could not reach Ralph's app at ${this.base} (${describe(err)}); the signal was not recorded, retry shortly`,
      );
    }
    if (res.ok) {
      await res.body?.cancel();
      return;
    }
    if (isRedirect(res))
      throw new ToolError(
        'unavailable',
        `what listens at ${this.base} did not record the ${verb} signal: it ${redirectText(res)}; is it Ralph's app?`,
      );
    const why = await errorText(res);
    if (res.status >= 400 && res.status < 500)
      throw new ToolError('invalid_argument', `Ralph's app refused the ${verb} signal (HTTP ${res.status}): ${why}`);
    throw new ToolError(
      'unavailable',
      `Ralph's app failed to record the ${verb} signal (HTTP ${res.status}): ${why}; retry shortly`,
    );
  }

  private post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      // Never follow: a 307/308 would re-POST the signal (the agent's text) and the database path to any
      // host the answer names. Ralph's app never redirects; whatever does is refused.
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  }
}

const isRedirect = (res: Response): boolean => res.status >= 300 && res.status < 400;

/** A redirect, in words: where it pointed (bounded), and that it was not followed. */
function redirectText(res: Response): string {
  void res.body?.cancel();
  const to = (res.headers.get('location') ?? '').slice(0, 200);
  return `answered HTTP ${res.status}, a redirect${to ? ` to ${JSON.stringify(to)}` : ''}, which is not followed`;
}

/** The `error` of a JSON body, else the plain text, bounded; never the raw bytes of something huge. */
async function errorText(res: Response): Promise<string> {
  let text = '';
  try {
    const reader = res.body?.getReader();
    const decoder = new TextDecoder();
    while (reader && text.length < MAX_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader?.cancel();
  } catch {
    /* a body cut short: use what came */
  }
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed?.error === 'string') message = parsed.error;
  } catch {
    /* plain text */
  }
  if (message === '') message = `HTTP ${res.status} ${res.statusText}`.trim();
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
