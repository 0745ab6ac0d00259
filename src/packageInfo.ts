import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

export const PACKAGE_ROOT = findPackageRoot();

let cachedVersion: string | undefined;
export function packageVersion(): string {
  cachedVersion ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return cachedVersion;
}

export const schemaFile = (name: string): string => join(PACKAGE_ROOT, 'schema', name);

/**
 * The script a client should run to start this server: the bundle when it was built (what npm
 * installs and Docker runs), else tsc's cli.js (a checkout built without the bundle step).
 */
export function serverEntry(): string {
  const bundle = join(PACKAGE_ROOT, 'dist', 'ralph-mcp.js');
  return existsSync(bundle) ? bundle : join(PACKAGE_ROOT, 'dist', 'src', 'cli.js');
}
