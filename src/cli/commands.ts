import yargs, { type Argv, type InferredOptionType, type Options } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { StartupError } from '../domain/errors.js';
import { packageVersion } from '../domain/packageInfo.js';
import { RECIPE_NAMES } from '../registry/recipes.js';
import { TOOL_NAMES } from '../registry/registry.js';
import { COMMANDS, type CommandFlag } from './commandTable.js';
import type { Runtime } from './runtimes.js';
import { SESSION_FLAGS } from './flags.js';
import type { ServeArgv } from './serveArgs.js';
import { commaList as list, defaultProject, fail, refuseServing, run, serveCommand, sessionOptions } from './launch.js';

/**
 * The whole command line with yargs: every subcommand, --help, --version, and every error message. A
 * plain serving launch does not come here (main.ts parses it with node:util and serves at once). Every
 * command's description and flags come from the table (commandTable.ts); none is declared here.
 */
type Commands = typeof COMMANDS;
type Flags<K extends keyof Commands> = Commands[K]['session'] extends true
  ? typeof SESSION_FLAGS & Commands[K]['flags']
  : Commands[K]['flags'];
/** What yargs parses those flags into: its InferredOptionTypes, flag by flag (the table is wider than Options). */
type Parsed<F> = { [P in keyof F]: F[P] extends Options ? InferredOptionType<F[P]> : unknown };

/** The table's flags as yargs options: a flag with choices says no type (yargs' help lists the choices). */
const asOptions = (flags: Record<string, CommandFlag>) =>
  Object.fromEntries(
    Object.entries(flags).map(([name, { type, ...spec }]) => [name, spec.choices ? spec : { type, ...spec }]),
  );

/**
 * A command's flags from the table on yargs: the session flags first when it takes them. The options are
 * built at run time, so yargs cannot type them: the type says what the table's own flags parse into.
 */
function flagsOf<T, K extends keyof Commands>(y: Argv<T>, name: K): Argv<T & Parsed<Flags<K>>> {
  const { session, flags } = COMMANDS[name];
  return y.options({ ...(session ? asOptions(SESSION_FLAGS) : {}), ...asOptions(flags) }) as never;
}

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
      COMMANDS.serve.describe,
      (y) => flagsOf(y, 'serve'),
      // yargs may still run the handler after its fail callback: a refused launch serves nothing.
      (argv) => (refused ? undefined : serveCommand(argv as unknown as ServeArgv)),
    )
    .command(
      'init',
      COMMANDS.init.describe,
      (y) => flagsOf(y, 'init'),
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
      COMMANDS.migrate.describe,
      (y) => flagsOf(y, 'migrate'),
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
      COMMANDS.answer.describe,
      (y) => flagsOf(y, 'answer'),
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
      COMMANDS.plan.describe,
      (y) => flagsOf(y, 'plan'),
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
      COMMANDS.config.describe,
      (y) => flagsOf(y, 'config'),
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
              runtime: argv.runtime as Runtime | undefined,
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
      COMMANDS.tools.describe,
      (y) => flagsOf(y, 'tools'),
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
      COMMANDS.overrides.describe,
      (y) => flagsOf(y, 'overrides'),
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
      COMMANDS.doctor.describe,
      (y) => flagsOf(y, 'doctor'),
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
      COMMANDS.repair.describe,
      (y) => flagsOf(y, 'repair'),
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
