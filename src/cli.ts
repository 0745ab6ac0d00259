#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { StartupError } from './errors.js';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { packageVersion } from './packageInfo.js';
import { RECIPE_NAMES } from './registry/recipes.js';
import { TOOL_NAMES } from './registry/registry.js';

/**
 * Command line. Any launch problem ends here as ONE line on stderr and a non-zero exit (2), before
 * any MCP traffic; stdout stays silent so an MCP client never reads junk.
 */
function fail(message: string, exitCode = 2): never {
  process.stderr.write(`ralph-mcp: error: ${message}\n`);
  process.exit(exitCode);
}

async function run(action: () => Promise<void> | void): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (err instanceof StartupError) fail(err.message, err.exitCode);
    fail(`unexpected failure: ${(err as Error)?.stack?.split('\n')[0] ?? String(err)}`, 1);
  }
}

const defaultProject = () => process.env.RALPH_PROJECT || process.cwd();

await yargs(hideBin(process.argv))
  .scriptName('ralph-mcp')
  .usage('$0 [serve] --project DIR --recipe NAME [--discipline NAME] [--task ID]\n\nServes the Ralph project tools over MCP (stdio) for one agent session.')
  .command(
    ['serve', '$0'],
    'Serve MCP over stdio for one session (the default command)',
    (y) =>
      y
        .option('project', { type: 'string', describe: 'Project directory (default: $RALPH_PROJECT, else the current directory)' })
        .option('recipe', { type: 'string', describe: `Session recipe: ${RECIPE_NAMES.join(', ')}; omit for the full suite (debugging)` })
        .option('discipline', { type: 'string', describe: "Discipline whose tool overrides apply (default: the task's discipline)" })
        .option('task', { type: 'string', describe: 'Scope the session to this task id' })
        .option('db', { type: 'string', describe: 'Database path (default: <project>/.ralph/db/ralph.db)' })
        .option('session-id', { type: 'string', describe: 'Id recorded with this session\'s writes and signals (default: generated)' })
        .option('log-level', { choices: LOG_LEVELS, default: 'info' as LogLevel, describe: 'Log level (logs go to stderr)' })
        .option('log-file', { type: 'string', describe: 'Write logs to this file instead of stderr' }),
    (argv) =>
      run(async () => {
        const { serve } = await import('./cli/serve.js');
        await serve({
          project: argv.project ?? defaultProject(),
          recipe: argv.recipe,
          discipline: argv.discipline,
          task: argv.task,
          sessionId: argv['session-id'],
          db: argv.db,
          logLevel: argv['log-level'],
          logFile: argv['log-file'],
        });
      }),
  )
  .command(
    'init',
    'Create .ralph/db/ralph.db (Ralph schema + metadata) and empty .ralph/learnings.txt and progress.txt',
    (y) =>
      y
        .option('project', { type: 'string', describe: 'Project directory (default: $RALPH_PROJECT, else the current directory)' })
        .option('title', { type: 'string', describe: 'Project title (default: the directory name)' })
        .option('description', { type: 'string', describe: 'Project description' }),
    (argv) =>
      run(async () => {
        const { initProject } = await import('./project.js');
        const p = initProject(argv.project ?? defaultProject(), { title: argv.title, description: argv.description });
        process.stdout.write(`created ${p.dbPath}\n`); // stdout-ok: init is a plain CLI command, not an MCP session
      }),
  )
  .epilog(`Recipes: ${RECIPE_NAMES.join(', ')}\nTools: ${TOOL_NAMES.join(', ')}`)
  .strict()
  .version(packageVersion())
  .help()
  .wrap(Math.min(110, process.stdout.columns || 110))
  .fail((msg, err) => {
    if (err) fail(err.message);
    fail(`${msg} (see ralph-mcp --help)`);
  })
  .parseAsync();
