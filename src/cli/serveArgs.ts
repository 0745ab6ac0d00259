import { parseArgs } from 'node:util';
import type { LogLevel } from '../server/log.js';
import { SERVE_FLAGS, type FlagSpec } from './flags.js';
import type { SessionArgv } from './launch.js';

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

type FlagName = keyof typeof SERVE_FLAGS;
const NAMES = Object.keys(SERVE_FLAGS) as FlagName[];

/** A number as yargs reads one (a decimal literal); undefined for anything it would not give back as that number. */
function number(v: string): number | undefined {
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

/** One flag's value as the table says (its type, choices and default); undefined when yargs must say why not. */
function flagValue(
  name: FlagName,
  given: string | boolean | undefined,
): { ok: boolean; value?: string | number | boolean } {
  const spec: FlagSpec = SERVE_FLAGS[name];
  // node:util gives a boolean flag `true` when present and refuses `--flag=value` (yargs reads that one).
  if (spec.type === 'boolean') return given === true ? { ok: true, value: true } : { ok: true };
  const raw = typeof given === 'boolean' ? undefined : (given ?? spec.default);
  if (raw === undefined) return { ok: true };
  if (spec.type === 'number') {
    const n = typeof raw === 'number' ? raw : number(raw);
    return n === undefined ? { ok: false } : { ok: true, value: n };
  }
  if (spec.choices && !spec.choices.includes(String(raw))) return { ok: false };
  return { ok: true, value: raw };
}

type Options = Record<FlagName, { type: 'string' | 'boolean' }>;

/**
 * The serving launch, parsed without yargs so that every agent session's start does not pay for loading
 * it. Anything this parser does not understand completely (--help, a subcommand, a typo, a repeated or
 * malformed flag) returns undefined and goes to yargs, the one place that words errors.
 */
export function parseServeArgs(args: readonly string[]): ServeArgv | undefined {
  let parsed: ReturnType<typeof parseArgs<{ options: Options; allowPositionals: true; strict: true; tokens: true }>>;
  try {
    const options = Object.fromEntries(
      NAMES.map((f) => [f, { type: SERVE_FLAGS[f].type === 'boolean' ? 'boolean' : 'string' }]),
    ) as Options;
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true, tokens: true });
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
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const name of NAMES) {
    const v = flagValue(name, values[name]);
    if (!v.ok) return undefined;
    out[name] = v.value;
  }
  return out as unknown as ServeArgv;
}
