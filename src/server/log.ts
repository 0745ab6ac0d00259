import pino, { type Logger } from 'pino';
import { StartupError } from '../domain/errors.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * stdout is the MCP protocol: logs go to stderr (fd 2) or to a file, never anywhere else.
 * Writes are synchronous so the last lines before an exit are not lost.
 */
export function createLogger(level: LogLevel = 'info', file?: string): Logger {
  let dest: ReturnType<typeof pino.destination>;
  try {
    dest = file
      ? pino.destination({ dest: file, mkdir: true, sync: true, append: true })
      : pino.destination({ dest: 2, sync: true }); // not fd: pino reads process.stdout.fd when dest is missing
  } catch (err) {
    throw new StartupError(`cannot open log file ${file}: ${(err as Error).message}`);
  }
  return pino({ name: 'ralph-mcp', level, base: { pid: process.pid }, hooks: { logMethod } }, dest);
}

/**
 * Where a session's log lines also go: its MCP client, as notifications/message (server/clientLog.ts).
 * Set on the session's own child logger; its children inherit it.
 */
export const CLIENT_SINK = Symbol('ralph-mcp client log sink');
/** pino's numeric level and the logging call's arguments (`(obj, msg)` or `(msg)`). */
export type ClientSink = (level: number, args: unknown[]) => void;

/** A child of `log` whose lines (those at or above its level) are also handed to `sink`. */
export function withClientSink(log: Logger, sink: ClientSink): Logger {
  const child = log.child({});
  (child as unknown as Record<symbol, ClientSink>)[CLIENT_SINK] = sink;
  return child;
}

/** pino's hook, run for every line written: hands the line to the session's sink, if the logger has one. */
function logMethod(
  this: Logger,
  args: Parameters<Logger['info']>,
  method: (...a: unknown[]) => void,
  level: number,
): void {
  const sink = (this as unknown as Record<symbol, ClientSink | undefined>)[CLIENT_SINK];
  if (sink) {
    try {
      sink(level, args);
    } catch {
      // never let the client's side of logging break the line itself
    }
  }
  method.apply(this, args);
}
