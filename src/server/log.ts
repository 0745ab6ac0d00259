import pino, { type Logger } from 'pino';
import { StartupError } from '../domain/errors.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * stdout is the MCP protocol: logs go to stderr (fd 2) or to a file, never anywhere else.
 * Writes are synchronous so the last lines before an exit are not lost.
 * Logging to stderr, pino and its stream are made at the first line written (at or above `level`) or the
 * first child logger: a start that writes no line (`--log-level error`, or `warn` with no warning)
 * makes neither before it answers (under Bun, whose builds load pino then too: scripts/bunBuild.mjs, 3–4 ms
 * of a start). A log file is opened at once: one that cannot be opened fails the launch.
 */
export function createLogger(level: LogLevel = 'info', file?: string): Logger {
  return file ? makeLogger(level, file) : lazyLogger(level, () => makeLogger(level));
}

function makeLogger(level: LogLevel, file?: string): Logger {
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

/** pino's level numbers (pino.levels.values, without loading pino). */
const LEVEL_VALUES: Record<LogLevel, number> = {
  fatal: 60,
  error: 50,
  warn: 40,
  info: 30,
  debug: 20,
  trace: 10,
  silent: Number.POSITIVE_INFINITY,
};
const LINE_METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * A logger that makes the real one (`make`) at its first line at or above `level`, or its first child;
 * what ralph-mcp calls on a logger: the line methods and child (test/unit/log.test.ts).
 */
function lazyLogger(level: LogLevel, make: () => Logger): Logger {
  let real: Logger | undefined;
  const get = () => (real ??= make());
  const lazy: Record<string, unknown> = {
    level,
    child: (...args: Parameters<Logger['child']>) => get().child(...args),
  };
  for (const method of LINE_METHODS) {
    const enabled = LEVEL_VALUES[method] >= LEVEL_VALUES[level];
    lazy[method] = (...args: unknown[]) => {
      if (!enabled) return;
      const logger = get();
      (logger[method] as (...a: unknown[]) => void).apply(logger, args);
    };
  }
  return lazy as unknown as Logger;
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
