import pino, { type Logger } from 'pino';
import { StartupError } from './errors.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * stdout is the MCP protocol: logs go to stderr (fd 2) or to a file, never anywhere else.
 * Writes are synchronous so the last lines before an exit are not lost.
 */
export function createLogger(level: LogLevel = 'info', file?: string): Logger {
  let dest;
  try {
    dest = file ? pino.destination({ dest: file, mkdir: true, sync: true, append: true }) : pino.destination({ fd: 2, sync: true });
  } catch (err) {
    throw new StartupError(`cannot open log file ${file}: ${(err as Error).message}`);
  }
  return pino({ name: 'ralph-mcp', level, base: { pid: process.pid } }, dest);
}
