import { RECIPE_NAMES } from '../registry/recipes.js';
import { LOG_LEVELS } from '../server/log.js';

/**
 * THE table of the serving launch's flags: read by yargs (commands.ts: serve, plan, config and --help)
 * and by the serving fast path (serveArgs.ts), so the two can never disagree on a name, a type, a
 * choice or a default.
 */
export interface FlagSpec {
  type: 'string' | 'number' | 'boolean';
  describe: string;
  choices?: readonly string[];
  default?: string | number;
}

/** The flags that define a session: serve, plan and config compute the same plan from them. */
export const SESSION_FLAGS = {
  project: { type: 'string', describe: 'Project directory (default: $RALPH_PROJECT, else the current directory)' },
  recipe: {
    type: 'string',
    describe: `Session recipe: ${RECIPE_NAMES.join(', ')}; omit for the full suite (debugging)`,
  },
  discipline: { type: 'string', describe: "Discipline whose tool overrides apply (default: the task's discipline)" },
  task: { type: 'string', describe: 'Scope the session to this task id' },
  'session-id': { type: 'string', describe: "Id recorded with this session's writes and signals (default: generated)" },
  context: {
    type: 'string',
    describe: 'SPEC-070 context.json instead of (or agreeing with) the flags; its disabled_tools only remove',
  },
  db: { type: 'string', describe: 'Database path (default: <project>/.ralph/db/ralph.db)' },
  'read-only': {
    type: 'boolean',
    describe: 'Serve only the tools annotated read-only (readOnlyHint) of what the session would serve',
  },
  tools: { type: 'string', describe: 'Comma list: serve only these of what the session would serve (never adds)' },
  'exclude-tools': { type: 'string', describe: 'Comma list: remove these tools from what the session would serve' },
} as const satisfies Record<string, FlagSpec>;

/** How a session is served: logs, transport, and a claim's lease. */
export const SERVING_FLAGS = {
  'log-level': { type: 'string', choices: LOG_LEVELS, default: 'info', describe: 'Log level (logs go to stderr)' },
  'log-file': { type: 'string', describe: 'Write logs to this file instead of stderr' },
  transport: {
    type: 'string',
    choices: ['stdio', 'socket', 'http'],
    default: 'stdio',
    describe: 'stdio (default), a Unix socket shared by many agents, or Streamable HTTP at /mcp',
  },
  socket: {
    type: 'string',
    describe: 'Socket path for --transport socket (owner-only; a PATH.pid file is written beside it)',
  },
  host: { type: 'string', default: '127.0.0.1', describe: 'HTTP bind address (non-loopback requires a token)' },
  port: { type: 'number', default: 8765, describe: 'HTTP port (0: any free port, logged)' },
  'auth-token': { type: 'string', describe: 'Bearer token HTTP clients must send (or RALPH_MCP_TOKEN)' },
  'lease-seconds': {
    type: 'number',
    describe:
      "A claimed task's lease: without a call of its session for this long, another claim takes it over (default 900, or RALPH_MCP_LEASE_SECONDS)",
  },
} as const satisfies Record<string, FlagSpec>;

export const SERVE_FLAGS = { ...SESSION_FLAGS, ...SERVING_FLAGS } as const;
