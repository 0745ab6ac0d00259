import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { StartupError } from '../domain/errors.js';
import { bundleOnDisk, isSingleExecutable, serverLaunch } from '../domain/packageInfo.js';

/**
 * What a `config` entry runs the server with (`--runtime`): node or bun on the npm bundle; exe, a single
 * executable built beside the bundle (Bun's, else Node's); auto, the fastest found here: the Bun
 * executable, else bun, else the Node executable, else node (docs/launching.md has the figures).
 * Without it: this very process's way of running (packageInfo.ts serverLaunch).
 */
export const RUNTIMES = ['node', 'bun', 'exe', 'auto'] as const;
export type Runtime = (typeof RUNTIMES)[number];

export interface Launch {
  command: string;
  args: string[];
}

const underBun = (): boolean => typeof (process.versions as Record<string, string | undefined>).bun === 'string';

/** An executable file named `name` in an absolute directory of `path` (as found there: links kept). */
function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(':')) {
    if (!isAbsolute(dir)) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The Bun or the Node single executable, when a build put it beside the bundle. */
function builtExecutable(kind: 'bun' | 'node'): Launch | undefined {
  const name = `ralph-mcp-${kind === 'bun' ? 'bun-' : ''}${process.platform}-${process.arch}`;
  const file = join(bundleOnDisk().dir, name);
  return existsSync(file) ? { command: file, args: [] } : undefined;
}

/** `runtime` on the bundle: this process's own binary when it is that runtime, else one found on PATH. */
function onBundle(runtime: 'node' | 'bun', env: NodeJS.ProcessEnv): Launch | undefined {
  const own = runtime === 'bun' ? underBun() : !underBun();
  const command = own ? process.execPath : findOnPath(runtime, env.PATH);
  return command ? { command, args: [bundleOnDisk().script] } : undefined;
}

/** The launch of this server under `runtime` (absolute commands: a client may start it from anywhere). */
export function launchFor(runtime: Runtime | undefined, env: NodeJS.ProcessEnv = process.env): Launch {
  if (runtime === undefined) return serverLaunch();
  if (isSingleExecutable()) {
    if (runtime === 'exe' || runtime === 'auto') return serverLaunch();
    throw new StartupError(
      `--runtime ${runtime}: this is a single executable, with no bundle beside it for ${runtime} to run; use --runtime exe, or the npm package`,
    );
  }
  if (runtime === 'auto')
    return (
      builtExecutable('bun') ??
      onBundle('bun', env) ??
      builtExecutable('node') ??
      onBundle('node', env) ??
      serverLaunch()
    );
  if (runtime === 'exe') {
    const exe = builtExecutable('bun') ?? builtExecutable('node');
    if (exe) return exe;
    throw new StartupError(
      `--runtime exe: no single executable beside the bundle in ${bundleOnDisk().dir} (npm run build:exe:bun, or build:exe, makes one)`,
    );
  }
  const launch = onBundle(runtime, env);
  if (!launch) throw new StartupError(`--runtime ${runtime}: no ${runtime} found on PATH`);
  return launch;
}
