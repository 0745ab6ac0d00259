import { renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { StartupError } from '../domain/errors.js';
import { resolveTools } from '../registry/enabled.js';
import { TOOL_NAMES } from '../registry/registry.js';
import type { SessionPlan } from '../session/plan.js';
import { SIGNALS_RECIPE } from '../session/ralphEnv.js';
import { filterArgs, removedByToolFilters } from '../session/toolFilters.js';
import type { RalphStore } from '../store/store.js';
import { launchFor, type Launch, type Runtime } from './runtimes.js';

export const CONFIG_FORMATS = ['claude', 'vscode', 'cursor'] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number];

interface StdioServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * In a task session on Ralph's current schema, Ralph launches its signal server ("ralph-signals", the
 * eight verbs) beside the others. This is that entry, served by ralph-mcp: no flags, Ralph's own
 * environment variables, the same session id as the "ralph" entry so both record one agent session.
 */
function signalsEntry(plan: SessionPlan, launch: Launch, sessionId: string, apiPort: number | undefined): StdioServer {
  const env: Record<string, string> = {
    RALPH_TASK_ID: String(plan.task!.id),
    RALPH_SESSION_ID: sessionId,
    RALPH_DB_PATH: plan.project.dbPath,
  };
  if (apiPort !== undefined) env.RALPH_API_PORT = String(apiPort);
  const { command, args } = launch;
  // The tool flags narrow every server this configuration launches, the signal server too.
  return { command, args: [...args, ...filterArgs(plan.filters)], env };
}

const wantsSignals = (plan: SessionPlan) =>
  plan.generation === 'normalized' &&
  plan.task !== null &&
  plan.recipe?.ownTaskOnly === true &&
  plan.recipe.name !== 'signals' &&
  signalsLeft(plan);

/** Whether the signals recipe keeps a tool under the launch's tool flags (every signal writes: not with --read-only). */
function signalsLeft(plan: SessionPlan): boolean {
  const signals = plan.origin.recipes.find((r) => r.name === SIGNALS_RECIPE);
  return (
    signals !== undefined &&
    resolveTools(TOOL_NAMES, signals.allow, removedByToolFilters(plan.filters)).enabled.length > 0
  );
}

/** This very server, started the same way wherever the client runs it from: absolute paths only. */
function ralphEntry(
  plan: SessionPlan,
  launch: Launch,
  dbOverride: string | undefined,
  extra: ConfigExtras,
): StdioServer {
  const { command } = launch;
  const args = [...launch.args];
  args.push('--project', plan.project.root);
  if (dbOverride) args.push('--db', plan.project.dbPath);
  // The context file carries more than the flags (disabled_tools, feature): pass it through, by absolute path.
  if (extra.context) args.push('--context', resolve(extra.context));
  if (extra.sessionId) args.push('--session-id', extra.sessionId);
  if (plan.recipe) args.push('--recipe', plan.recipe.name);
  if (plan.disciplineSource === 'flag' && plan.discipline) args.push('--discipline', plan.discipline);
  if (plan.task) args.push('--task', String(plan.task.id));
  args.push(...filterArgs(plan.filters));
  return { command, args };
}

/** The discipline's own MCP servers (disciplines.mcp_servers: [{name, command, args?, env?}]), checked. */
function disciplineServers(store: RalphStore, discipline: string | null): Record<string, StdioServer> {
  if (!discipline) return {};
  const where = `the MCP servers of discipline ${JSON.stringify(discipline)}`;
  const items = store.disciplines.mcpServerItems(discipline);
  if (items === null) throw new StartupError(`${where} (disciplines.mcp_servers) is not a JSON array`);
  const out: Record<string, StdioServer> = {};
  items.forEach((item, i) => {
    const bad = (why: string) =>
      new StartupError(
        `${where}[${i}] ${why}; each entry must be {"name": string, "command": string, "args"?: string[], "env"?: {string: string}}`,
      );
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw bad('is not an object');
    const o = item as Record<string, unknown>;
    if (typeof o.name !== 'string' || !/^[\w.-]{1,64}$/.test(o.name)) throw bad('has no valid "name"');
    if (o.name === 'ralph' || o.name === 'ralph-signals')
      throw bad(`is named ${JSON.stringify(o.name)}, which is reserved for ralph-mcp itself`);
    if (out[o.name]) throw bad(`repeats the name ${JSON.stringify(o.name)}`);
    if (typeof o.command !== 'string' || o.command.trim() === '') throw bad('has no "command"');
    if (o.args !== undefined && !(Array.isArray(o.args) && o.args.every((a) => typeof a === 'string')))
      throw bad('has "args" that is not a list of strings');
    if (
      o.env !== undefined &&
      !(
        o.env !== null &&
        typeof o.env === 'object' &&
        !Array.isArray(o.env) &&
        Object.values(o.env).every((v) => typeof v === 'string')
      )
    ) {
      throw bad('has "env" that is not an object of strings');
    }
    out[o.name] = {
      command: o.command,
      args: (o.args as string[] | undefined) ?? [],
      ...(o.env ? { env: o.env as Record<string, string> } : {}),
    };
  });
  return out;
}

export interface ConfigExtras {
  context?: string | undefined;
  sessionId?: string | undefined;
  /** Ralph's local API port, for the signals entry (RALPH_API_PORT). */
  apiPort?: number | undefined;
  /** What the entries run the server with (cli/runtimes.ts); this process's own way when unset. */
  runtime?: Runtime | undefined;
}

/**
 * `ralph-mcp config`: the client configuration that launches this session. claude and cursor:
 * {"mcpServers": {...}}; vscode (VS Code, JetBrains Copilot mcp.json): {"servers": {name: {"type": "stdio", ...}}}.
 */
export function buildConfig(
  plan: SessionPlan,
  store: RalphStore,
  format: ConfigFormat,
  dbOverride?: string,
  extra: ConfigExtras = {},
): Record<string, unknown> {
  const signals = wantsSignals(plan);
  // Both entries must record one session: pin the id the plan made when none was given.
  const shared = signals ? { ...extra, sessionId: extra.sessionId ?? plan.scope.sessionId } : extra;
  const launch = launchFor(extra.runtime);
  const servers: Record<string, StdioServer> = { ralph: ralphEntry(plan, launch, dbOverride, shared) };
  if (signals) servers['ralph-signals'] = signalsEntry(plan, launch, shared.sessionId!, extra.apiPort);
  Object.assign(servers, disciplineServers(store, plan.discipline));
  if (format === 'vscode') {
    return { servers: Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, { type: 'stdio', ...s }])) };
  }
  return { mcpServers: servers };
}

/** Writes next to the target and renames over it: a reader never sees half a file. */
export function writeAtomically(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, file);
}
