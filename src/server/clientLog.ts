import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SetLevelRequestSchema, type LoggingLevel, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { handle } from './handle.js';
import type { ClientSink } from './log.js';

/**
 * MCP logging for one session: after the client's logging/setLevel, the session's log lines at or above
 * that level also go to it as notifications/message, but only lines written at all (at or above
 * --log-level); refused calls are sent on their own, at `notice`, whatever --log-level says.
 */
const SEVERITY: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** pino's numeric levels (10 trace … 60 fatal) as syslog's, which MCP uses. */
const fromPino = (level: number): LoggingLevel =>
  level >= 60 ? 'critical' : level >= 50 ? 'error' : level >= 40 ? 'warning' : level >= 30 ? 'info' : 'debug';

type SendNotification = (n: ServerNotification) => Promise<void>;

export class ClientLog {
  private level: LoggingLevel | undefined;
  private sending = false;
  /**
   * The request being handled (tools/call handlers run synchronously): a line logged during it goes
   * out on that request's own stream (Streamable HTTP), not only on the standalone one.
   */
  current: SendNotification | undefined;

  constructor(private readonly server: Server) {
    handle(server, SetLevelRequestSchema, (req) => {
      this.level = req.params.level;
      return {};
    });
  }

  /** Sends one message if the client asked for this level or a lower one. */
  send(level: LoggingLevel, data: Record<string, unknown>): void {
    if (this.level === undefined || SEVERITY[level] < SEVERITY[this.level] || this.sending) return;
    this.sending = true; // a failure to send that is itself logged must not loop
    try {
      const notification = { method: 'notifications/message' as const, params: { level, logger: 'ralph-mcp', data } };
      const send = this.current ?? ((n: ServerNotification) => this.server.notification(n));
      send(notification).catch(() => undefined);
    } catch {
      // a closed transport: nothing to tell
    } finally {
      this.sending = false;
    }
  }

  /** For withClientSink: a pino line as a message. */
  readonly sink: ClientSink = (level, args) => {
    if (this.level === undefined) return;
    this.send(fromPino(level), lineData(args));
  };
}

/** A pino call's arguments, `(obj, msg)`, `(err, msg)` or `(msg)`, as message data (errors by their message). */
function lineData(args: unknown[]): Record<string, unknown> {
  const [first, second] = args;
  const out: Record<string, unknown> = {};
  if (first instanceof Error) {
    out.message = typeof second === 'string' ? second : first.message;
    out.error = first.message;
    return out;
  }
  if (first !== null && typeof first === 'object') {
    if (typeof second === 'string') out.message = second;
    for (const [k, v] of Object.entries(first)) out[k] = v instanceof Error ? v.message : v;
    return out;
  }
  out.message = String(first);
  return out;
}
