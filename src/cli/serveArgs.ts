import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from '../server/log.js';
import type { SessionArgv } from './launch.js';

/**
 * The serving launch, parsed without yargs: what every agent session starts with, so it should not pay
 * for a command-line library it does not need (yargs and its terminal-width setup cost ~40 ms per
 * start). Only a launch this parser understands completely is served from here: the `serve` command or
 * none, known flags, each at most once, every value of the expected kind. Anything else — --help,
 * --version, a subcommand, a typo, a repeated or malformed flag — returns undefined and goes to yargs,
 * which answers it exactly as it always has (and is the one place that words errors).
 */
export interface ServeArgv extends SessionArgv {
  'log-level': LogLevel;
  'log-file'?: string | undefined;
  transport: 'stdio' | 'socket' | 'http';
  socket?: string | undefined;
  host: string;
  port: number;
  'auth-token'?: string | undefined;
  'lease-seconds'?: number | undefined;
}

const STRING_FLAGS = [
  'project',
  'recipe',
  'discipline',
  'task',
  'session-id',
  'context',
  'db',
  'log-level',
  'log-file',
  'transport',
  'socket',
  'host',
  'port',
  'auth-token',
  'lease-seconds',
] as const;
const TRANSPORTS = ['stdio', 'socket', 'http'] as const;

/** A number as yargs reads one (a decimal literal); undefined for anything it would not give back as that number. */
function number(v: string): number | undefined {
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

export function parseServeArgs(args: readonly string[]): ServeArgv | undefined {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: Record<(typeof STRING_FLAGS)[number], { type: 'string' }>;
      allowPositionals: true;
      strict: true;
      tokens: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args: [...args],
      options: Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: 'string' }])) as Record<
        (typeof STRING_FLAGS)[number],
        { type: 'string' }
      >,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch {
    return undefined;
  }
  const { values, positionals, tokens } = parsed;
  if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== 'serve')) return undefined;
  // `--` and repeated flags (yargs makes a list of those) are yargs' to interpret.
  if (tokens.some((t) => t.kind === 'option-terminator')) return undefined;
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    if (seen.has(t.name)) return undefined;
    seen.add(t.name);
    // A value that looks like a flag (`--recipe --task`): yargs reads that differently.
    if (t.value?.startsWith('-') && t.inlineValue !== true && !/^-\d/.test(t.value)) return undefined;
  }
  const logLevel = values['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) return undefined;
  const transport = values.transport ?? 'stdio';
  if (!(TRANSPORTS as readonly string[]).includes(transport)) return undefined;
  const port = values.port === undefined ? 8765 : number(values.port);
  if (port === undefined) return undefined;
  const lease = values['lease-seconds'] === undefined ? undefined : number(values['lease-seconds']);
  if (values['lease-seconds'] !== undefined && lease === undefined) return undefined;
  return {
    project: values.project,
    recipe: values.recipe,
    discipline: values.discipline,
    task: values.task,
    'session-id': values['session-id'],
    context: values.context,
    db: values.db,
    'log-level': logLevel as LogLevel,
    'log-file': values['log-file'],
    transport: transport as ServeArgv['transport'],
    socket: values.socket,
    host: values.host ?? '127.0.0.1',
    port,
    'auth-token': values['auth-token'],
    'lease-seconds': lease,
  };
}
