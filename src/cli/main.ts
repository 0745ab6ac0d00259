import { serveCommand } from './launch.js';
import { parseServeArgs } from './serveArgs.js';

/**
 * The command line. A serving launch (what every agent session is) is parsed by node:util and served at
 * once; everything else — subcommands, --help, --version, any flag this parser does not fully
 * understand — goes to the yargs program (cli/commands.ts), loaded only then. Any launch problem ends
 * as ONE line on stderr and exit 2, before any MCP traffic; stdout stays MCP's alone.
 */
export function main(argv: readonly string[] = process.argv.slice(2)): void {
  const serving = parseServeArgs(argv);
  void (serving ? serveCommand(serving) : import('./commands.js').then((m) => m.runCommandLine()));
}
