import type { Project } from '../../src/domain/project.js';
import { toolFilterFlags } from '../../src/cli/launch.js';
import { parseServeArgs } from '../../src/cli/serveArgs.js';
import { openInProc, type InProcOptions, type InProcSession } from '../contract/harness.js';

/**
 * A session opened in-process from the command-line flags an end-to-end test would launch with
 * (`['--recipe', 'yap', '--task', '3']`): the same plan, server and SDK client, without the process.
 */
export async function startInProc(
  project: Project,
  flags: string[] = [],
  opts: InProcOptions = {},
): Promise<InProcSession> {
  const argv = parseServeArgs(['--project', project.root, ...flags]);
  if (!argv) throw new Error(`flags the serving launch does not take: ${flags.join(' ')}`);
  return openInProc(
    project,
    {
      recipe: argv.recipe,
      discipline: argv.discipline,
      task: argv.task,
      sessionId: argv['session-id'],
      context: argv.context,
      db: argv.db,
      leaseSeconds: argv['lease-seconds'],
      ...toolFilterFlags(argv),
    },
    opts,
  );
}
