import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { StartupError } from '../domain/errors.js';
import { packageVersion } from '../domain/packageInfo.js';
import { RECIPE_NAMES } from '../registry/recipes.js';
import { TOOL_NAMES } from '../registry/registry.js';
import { SERVING_FLAGS, SESSION_FLAGS, type FlagSpec } from './flags.js';
import type { ServeArgv } from './serveArgs.js';
import { commaList as list, defaultProject, fail, refuseServing, run, serveCommand, sessionOptions } from './launch.js';

/**
 * The whole command line with yargs: every subcommand, --help, --version, and every error message. A
 * plain serving launch does not come here (main.ts parses it with node:util and serves at once).
 */
const PROJECT = SESSION_FLAGS.project;
const DB = SESSION_FLAGS.db;

/** The table's flags as yargs options: a flag with choices says no type (yargs' help lists the choices). */
const asOptions = <T extends Record<string, FlagSpec>>(flags: T) =>
  Object.fromEntries(
    Object.entries(flags).map(([name, { type, ...spec }]) => [name, spec.choices ? spec : { type, ...spec }]),
  ) as unknown as { [K in keyof T]: T[K] & { choices?: string[] } };

/** The flags that define a session: shared by serve, plan and config, which compute the same plan. */
const sessionFlags = <T>(y: Argv<T>) => y.options(asOptions(SESSION_FLAGS));

/** Set once the launch was refused: nothing is served after that. */
let refused = false;

/** No subcommand (or `serve`) and no other transport than stdio: a launch an MCP client made. */
function servingLaunch(args: readonly string[]): boolean {
  const first = args.find((a) => !a.startsWith('-'));
  const subcommand = first !== undefined && args.indexOf(first) === 0 ? first : undefined;
  if (subcommand !== undefined && subcommand !== 'serve') return false;
  const t = args.findIndex((a) => a === '--transport' || a.startsWith('--transport='));
  const transport = t === -1 ? 'stdio' : args[t]!.includes('=') ? args[t]!.split('=')[1] : args[t + 1];
  return transport === 'stdio' && !args.includes('--help') && !args.includes('--version');
}

export async function runCommandLine(): Promise<void> {
  await yargs(hideBin(process.argv))
    .scriptName('ralph-mcp')
    .usage(
      '$0 [serve] --project DIR --recipe NAME [--discipline NAME] [--task ID]\n\nServes the Ralph project tools over MCP (stdio) for one agent session.',
    )
    .command(
      ['serve', '$0'],
      'Serve MCP over stdio for one session (the default command)',
      (y) => sessionFlags(y).options(asOptions(SERVING_FLAGS)),
      // yargs may still run the handler after its fail callback: a refused launch serves nothing.
      (argv) => (refused ? undefined : serveCommand(argv as unknown as ServeArgv)),
    )
    .command(
      'init',
      "Create .ralph/db/ralph.db (Ralph's schema, metadata, default disciplines) and empty .ralph/learnings.txt and progress.txt",
      (y) =>
        y
          .option('project', PROJECT)
          .option('title', { type: 'string', describe: 'Project title (default: the directory name)' })
          .option('description', { type: 'string', describe: 'Project description' })
          .option('schema', {
            choices: ['normalized', 'legacy'] as const,
            default: 'normalized' as const,
            describe: "normalized: Ralph's current schema; legacy: the one SPEC-070 was written against",
          })
          .option('disciplines', {
            type: 'boolean',
            default: true,
            describe: "Seed Ralph's default disciplines (--no-disciplines: none)",
          }),
      (argv) =>
        run(async () => {
          const { initProject } = await import('../store/open/init.js');
          const { print } = await import('./output.js');
          const p = initProject(argv.project ?? defaultProject(), {
            title: argv.title,
            description: argv.description,
            schema: argv.schema,
            disciplines: argv.disciplines,
          });
          print(`created ${p.dbPath} (${argv.schema} schema${argv.disciplines ? ', default disciplines' : ''})`);
          print(
            `next: ralph-mcp --project ${p.root} --recipe braindump   # an agent turns your notes into features and tasks`,
          );
        }),
    )
    .command(
      'migrate',
      "Move a legacy project to Ralph's current (normalized) schema; the original is kept as a backup beside it",
      (y) =>
        y
          .option('project', PROJECT)
          .option('db', DB)
          .option('completed-from', {
            choices: ['updated', 'created', 'now'] as const,
            describe:
              "Where a done task without a completed date (Ralph's head requires one) takes it from: " +
              'its updated or created date, or today; recorded in ralph_mcp_audit',
          }),
      (argv) =>
        run(async () => {
          const { migrateProject, useBatchDefaults } = await import('./migrate.js');
          const { print } = await import('./output.js');
          useBatchDefaults();
          print(migrateProject(argv.project ?? defaultProject(), argv.db, argv['completed-from']));
        }),
    )
    .command(
      'answer',
      'Answer a question an agent asked (the ask signal); agents read it with get_answers',
      (y) =>
        y
          .option('project', PROJECT)
          .option('db', DB)
          .option('question', {
            type: 'number',
            demandOption: true,
            describe: 'The question id (get_answers, get_task open_questions)',
          })
          .option('text', { type: 'string', demandOption: true, describe: 'The answer' }),
      (argv) =>
        run(async () => {
          const { answerQuestion } = await import('./answer.js');
          const { print } = await import('./output.js');
          if (!Number.isSafeInteger(argv.question) || argv.question < 1)
            throw new StartupError(
              `--question must be a question id (a positive integer), got ${String(argv.question)}`,
            );
          print(answerQuestion(argv.project ?? defaultProject(), argv.db, argv.question, argv.text));
        }),
    )
    .command(
      'plan',
      'Show the session plan (tools, instructions) that serve would use with the same flags',
      (y) =>
        sessionFlags(y).option('json', { type: 'boolean', describe: 'Stable JSON (schema/session-plan.schema.json)' }),
      (argv) =>
        run(async () => {
          const { openSession } = await import('../session/open.js');
          const { planToJson, planToText } = await import('../session/planJson.js');
          const { print } = await import('./output.js');
          const { store, plan } = openSession(await sessionOptions(argv));
          store.close();
          print(argv.json ? JSON.stringify(planToJson(plan), null, 2) : planToText(plan));
        }),
    )
    .command(
      'config',
      'Print (or --out write) the MCP client configuration that launches this session',
      (y) =>
        sessionFlags(y)
          .option('format', {
            choices: ['claude', 'vscode', 'cursor'] as const,
            default: 'claude' as const,
            describe: 'claude/cursor: {"mcpServers"}; vscode (also JetBrains): {"servers"}',
          })
          .option('out', { type: 'string', describe: 'Write to this file (atomically) instead of stdout' })
          .option('api-port', {
            type: 'number',
            describe: "Ralph's local API port: the ralph-signals entry sends signals to Ralph's app (RALPH_API_PORT)",
          })
          .option('runtime', {
            choices: ['node', 'bun', 'exe', 'auto'] as const,
            describe:
              'What the entries run the server with: node or bun on the bundle, exe (a single executable built beside it), auto (the fastest found); default: as this command runs',
          }),
      (argv) =>
        run(async () => {
          const { openSession } = await import('../session/open.js');
          const { buildConfig, writeAtomically } = await import('./config.js');
          const { print } = await import('./output.js');
          const { store, plan } = openSession(await sessionOptions(argv));
          // The entry serves what this plan serves: what a person should know before using it, on stderr.
          for (const w of plan.warnings) {
            const text =
              plan.recipe === null && w.startsWith('no --recipe given')
                ? 'no --recipe given: this entry serves the full tool suite, meant for debugging; pass --recipe R for an agent session'
                : w;
            process.stderr.write(`ralph-mcp: warning: ${text}\n`);
          }
          try {
            const extra = {
              context: argv.context,
              sessionId: argv['session-id'],
              apiPort: argv['api-port'],
              runtime: argv.runtime,
            };
            const text = `${JSON.stringify(buildConfig(plan, store, argv.format, argv.db, extra), null, 2)}\n`;
            if (argv.out) writeAtomically(argv.out, text);
            else print(text);
          } finally {
            store.close();
          }
        }),
    )
    .command(
      'tools',
      'The tool registry as a table: category, read/write/destructive, recipes that allow each tool',
      (y) =>
        y
          .option('recipe', { type: 'string', describe: 'Only the tools of this recipe' })
          .option('project', {
            type: 'string',
            describe:
              "Include this project's .ralph/mcp/recipes.json (default: $RALPH_PROJECT, else the current directory, if it has one)",
          })
          .option('read-only', {
            type: 'boolean',
            describe: 'Only the tools a --read-only session may serve (annotated readOnlyHint)',
          }),
      (argv) =>
        run(async () => {
          const { toolsTable } = await import('./toolsTable.js');
          const { loadRecipes } = await import('../registry/projectRecipes.js');
          const { projectPaths } = await import('../domain/project.js');
          const { print } = await import('./output.js');
          const recipes = loadRecipes(projectPaths(argv.project ?? defaultProject()));
          print(toolsTable(argv.recipe, recipes, argv['read-only'] === true));
        }),
    )
    .command(
      'overrides',
      "Show or edit a discipline's additional_disabled tools; prints each recipe's resulting tool set",
      (y) =>
        y
          .option('project', PROJECT)
          .option('db', DB)
          .option('discipline', { type: 'string', demandOption: true, describe: 'The discipline' })
          .option('disable', {
            type: 'string',
            array: true,
            describe: 'Tools to add to additional_disabled (comma-separated or repeated)',
          })
          .option('enable', { type: 'string', array: true, describe: 'Tools to remove from additional_disabled' })
          .option('clear', { type: 'boolean', describe: 'Remove every override of this discipline' }),
      (argv) =>
        run(async () => {
          const { overrides } = await import('./overrides.js');
          const { print } = await import('./output.js');
          print(
            overrides({
              project: argv.project ?? defaultProject(),
              db: argv.db,
              discipline: argv.discipline,
              disable: list(argv.disable),
              enable: list(argv.enable),
              clear: argv.clear,
            }),
          );
        }),
    )
    .command(
      'doctor',
      'Check the project: database, integrity, schema, overrides, recipes, dependencies, state files, versions',
      (y) => y.option('project', PROJECT).option('db', DB),
      (argv) =>
        run(async () => {
          const { doctor } = await import('./doctor.js');
          const { print } = await import('./output.js');
          const r = doctor(argv.project ?? defaultProject(), argv.db);
          print(r.text);
          if (!r.ok) process.exitCode = 1;
        }),
    )
    .command(
      'repair',
      'Remove dependencies on missing tasks or on the task itself (a dry run unless --apply); lists cycles to cut',
      (y) =>
        y.option('project', PROJECT).option('db', DB).option('apply', {
          type: 'boolean',
          default: false,
          describe: 'Remove them (one transaction, recorded in ralph_mcp_audit); without it nothing is written',
        }),
      (argv) =>
        run(async () => {
          const { repairDependencies } = await import('./repair.js');
          const { print } = await import('./output.js');
          print(repairDependencies(argv.project ?? defaultProject(), argv.db, argv.apply));
        }),
    )
    .epilog(`Recipes: ${RECIPE_NAMES.join(', ')}\nTools: ${TOOL_NAMES.join(', ')}`)
    .strict()
    .version(packageVersion())
    .help()
    .wrap(Math.min(110, process.stdout.columns || 110))
    .fail((msg, err) => {
      const message = err ? err.message : `${msg} (see ralph-mcp --help)`;
      // A serving launch (no subcommand, or serve) over stdio tells its client too.
      if (servingLaunch(process.argv.slice(2))) {
        refused = true;
        void refuseServing(message);
      } else fail(message);
    })
    .parseAsync();
}
