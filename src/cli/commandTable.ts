import { SERVING_FLAGS, SESSION_FLAGS, type FlagSpec } from './flags.js';

/**
 * THE table of the command line: every command, what it does and its flags. yargs reads it
 * (commands.ts, which declares no flag of its own) and `npm run docs` writes the reference's
 * command-line tables from it (scripts/referenceTables.ts), so --help and the reference never differ.
 */

/** A subcommand's flag: also a boolean default, a flag that must be given, one that may be repeated. */
export interface CommandFlag extends Omit<FlagSpec, 'default'> {
  default?: string | number | boolean;
  demandOption?: true;
  array?: true;
}

export interface CommandSpec {
  describe: string;
  /** Takes the session flags (SESSION_FLAGS) before its own: it computes a session's plan as serve does. */
  session: boolean;
  flags: Record<string, CommandFlag>;
}

const { project: PROJECT, db: DB } = SESSION_FLAGS;

export const COMMANDS = {
  serve: {
    describe: 'Serve MCP over stdio for one session (the default command)',
    session: true,
    flags: SERVING_FLAGS,
  },
  init: {
    describe:
      "Create .ralph/db/ralph.db (Ralph's schema, metadata, default disciplines) and empty .ralph/learnings.txt and progress.txt",
    session: false,
    flags: {
      project: PROJECT,
      title: { type: 'string', describe: 'Project title (default: the directory name)' },
      description: { type: 'string', describe: 'Project description' },
      schema: {
        type: 'string',
        choices: ['normalized', 'legacy'],
        default: 'normalized',
        describe: "normalized: Ralph's current schema; legacy: the one SPEC-070 was written against",
      },
      disciplines: {
        type: 'boolean',
        default: true,
        describe: "Seed Ralph's default disciplines (--no-disciplines: none)",
      },
    },
  },
  migrate: {
    describe:
      "Move a legacy project to Ralph's current (normalized) schema; the original is kept as a backup beside it",
    session: false,
    flags: {
      project: PROJECT,
      db: DB,
      'completed-from': {
        type: 'string',
        choices: ['updated', 'created', 'now'],
        describe:
          "Where a done task without a completed date (Ralph's head requires one) takes it from: " +
          'its updated or created date, or today; recorded in ralph_mcp_audit',
      },
    },
  },
  answer: {
    describe: 'Answer a question an agent asked (the ask signal); agents read it with get_answers',
    session: false,
    flags: {
      project: PROJECT,
      db: DB,
      question: {
        type: 'number',
        demandOption: true,
        describe: 'The question id (get_answers, get_task open_questions)',
      },
      text: { type: 'string', demandOption: true, describe: 'The answer' },
    },
  },
  plan: {
    describe: 'Show the session plan (tools, instructions) that serve would use with the same flags',
    session: true,
    flags: { json: { type: 'boolean', describe: 'Stable JSON (schema/session-plan.schema.json)' } },
  },
  config: {
    describe: 'Print (or --out write) the MCP client configuration that launches this session',
    session: true,
    flags: {
      format: {
        type: 'string',
        choices: ['claude', 'vscode', 'cursor'],
        default: 'claude',
        describe: 'claude/cursor: {"mcpServers"}; vscode (also JetBrains): {"servers"}',
      },
      out: { type: 'string', describe: 'Write to this file (atomically) instead of stdout' },
      'api-port': {
        type: 'number',
        describe: "Ralph's local API port: the ralph-signals entry sends signals to Ralph's app (RALPH_API_PORT)",
      },
      runtime: {
        type: 'string',
        choices: ['node', 'bun', 'exe', 'auto'],
        describe:
          'What the entries run the server with: node or bun on the bundle, exe (a single executable built beside ' +
          'it), auto (the fastest found); default: as this command runs',
      },
    },
  },
  tools: {
    describe: 'The tool registry as a table: category, read/write/destructive, recipes that allow each tool',
    session: false,
    flags: {
      recipe: { type: 'string', describe: 'Only the tools of this recipe' },
      project: {
        type: 'string',
        describe:
          "Include this project's .ralph/mcp/recipes.json (default: $RALPH_PROJECT, else the current directory, if it has one)",
      },
      'read-only': {
        type: 'boolean',
        describe: 'Only the tools a --read-only session may serve (annotated readOnlyHint)',
      },
    },
  },
  overrides: {
    describe: "Show or edit a discipline's additional_disabled tools; prints each recipe's resulting tool set",
    session: false,
    flags: {
      project: PROJECT,
      db: DB,
      discipline: { type: 'string', demandOption: true, describe: 'The discipline' },
      disable: {
        type: 'string',
        array: true,
        describe: 'Tools to add to additional_disabled (comma-separated or repeated)',
      },
      enable: { type: 'string', array: true, describe: 'Tools to remove from additional_disabled' },
      clear: { type: 'boolean', describe: 'Remove every override of this discipline' },
    },
  },
  doctor: {
    describe: 'Check the project: database, integrity, schema, overrides, recipes, dependencies, state files, versions',
    session: false,
    flags: { project: PROJECT, db: DB },
  },
  repair: {
    describe:
      'Remove dependencies on missing tasks or on the task itself (a dry run unless --apply); lists cycles to cut',
    session: false,
    flags: {
      project: PROJECT,
      db: DB,
      apply: {
        type: 'boolean',
        default: false,
        describe: 'Remove them (one transaction, recorded in ralph_mcp_audit); without it nothing is written',
      },
    },
  },
} as const satisfies Record<string, CommandSpec>;
