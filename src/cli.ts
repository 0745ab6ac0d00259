#!/usr/bin/env node
import { serveCommand } from './cli/launch.js';
import { parseServeArgs } from './cli/serveArgs.js';

/**
 * Command line. A serving launch (what every agent session is) is parsed by node:util and served at
 * once; everything else — subcommands, --help, --version, any flag this parser does not fully
 * understand — goes to the yargs program (cli/commands.ts), loaded only then. Any launch problem ends
 * as ONE line on stderr and exit 2, before any MCP traffic; stdout stays MCP's alone. (No top-level
 * await: the bundle is also built as CommonJS, for the code cache; see scripts/bundle.mjs.)
 */
const serving = parseServeArgs(process.argv.slice(2));
void (serving ? serveCommand(serving) : import('./cli/commands.js').then((m) => m.runCommandLine()));
