import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package files the server reads at run time (schema/*.sql and *.json, package.json), as the single
 * executable's build embeds them (path -> text, installed by the start-up edge); everywhere else they
 * are read from the installed package.
 */
let EMBEDDED: Record<string, string> | undefined;
export const useEmbeddedFiles = (files: Record<string, string> | undefined): void => {
  EMBEDDED = files;
};

/** True in the single executable: no package on disk, the server is the executable itself. */
export const isSingleExecutable = (): boolean => EMBEDDED !== undefined;

/** The installed package's root: the nearest folder above this module holding our package.json. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'schema'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('ralph-mcp: cannot locate its package root (package.json + schema/)');
    dir = parent;
  }
}

let root: string | undefined;
const packageRoot = (): string => (root ??= findPackageRoot());

/** A file of the package, by its path from the package root ('schema/ralph-mcp.sql'). */
export function packageText(path: string): string {
  const embedded = EMBEDDED?.[path];
  if (embedded !== undefined) return embedded;
  if (EMBEDDED) throw new Error(`ralph-mcp: ${path} was not embedded in this executable`);
  return readFileSync(join(packageRoot(), path), 'utf8');
}

let cachedVersion: string | undefined;
export function packageVersion(): string {
  cachedVersion ??= (JSON.parse(packageText('package.json')) as { version: string }).version;
  return cachedVersion;
}

export const schemaText = (name: string): string => packageText(`schema/${name}`);

/**
 * How a client should start this server: the single executable itself; else this runtime (Node, or Bun)
 * on the bundle when it was built (what npm installs and Docker runs), else on tsc's cli.js (a checkout
 * built without the bundle step).
 */
export function serverLaunch(): { command: string; args: string[] } {
  if (isSingleExecutable()) return { command: process.execPath, args: [] };
  return { command: process.execPath, args: [bundleOnDisk().script] };
}

/**
 * The installed package's dist/ folder (where a build also puts its single executables) and the script a
 * runtime starts the server from: the bundle, or tsc's cli.js in a checkout built without it.
 */
export function bundleOnDisk(): { dir: string; script: string } {
  const dir = join(packageRoot(), 'dist');
  const bundle = join(dir, 'ralph-mcp.js');
  return { dir, script: existsSync(bundle) ? bundle : join(dir, 'src', 'startup', 'cli.js') };
}
