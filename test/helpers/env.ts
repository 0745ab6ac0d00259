import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (tests run from dist/test/...). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The built artifact every end-to-end test spawns: the esbuild bundle that npm publishes. */
export const CLI = join(REPO, 'dist', 'ralph-mcp.js');
/** Reviewed snapshots (test/snapshots/): each tool's listing; `npm run test:update-golden` rewrites them. */
export const SNAPSHOT_DIR = join(REPO, 'test', 'snapshots');

/**
 * Set by .ci/run. Under CI nothing may switch a test off: missing fixtures fail the run instead of
 * skipping their tests, and UPDATE_GOLDEN (which makes every snapshot pass) fails it too.
 */
export const UNDER_CI = process.env.RALPH_CI === '1';

function fixtureSkip(dir: string, files: readonly string[], what: string, variable: string): string | false {
  if (files.every((f) => existsSync(join(dir, f)))) return false;
  if (UNDER_CI)
    throw new Error(
      `${what} not found in ${dir}: under CI (RALPH_CI=1) every fixture test must run; put them there or set ${variable}`,
    );
  return `${what} not found in ${dir} (set ${variable}); skipping`;
}

/** UPDATE_GOLDEN=1 rewrites the snapshots instead of checking them: never under CI. */
export function updateGolden(): boolean {
  if (process.env.UPDATE_GOLDEN !== '1') return false;
  if (UNDER_CI) throw new Error('UPDATE_GOLDEN=1 under CI (RALPH_CI=1): snapshots are checked there, never rewritten');
  return true;
}

/** Ralph's real databases live in ../shared (never copied into this repo); RALPH_FIXTURES overrides. */
export const FIXTURES_DIR = process.env.RALPH_FIXTURES ?? resolve(REPO, '..', 'shared', 'fixtures', 'ralph4days');
export const FIXTURES = [
  '01-desktop-blank.db',
  '02-desktop-feature.db',
  '03-desktop-tasks.db',
  '04-desktop-dev.db',
] as const;
export const FIXTURE_SKIP = fixtureSkip(FIXTURES_DIR, FIXTURES, "Ralph's legacy fixtures", 'RALPH_FIXTURES');

/** The databases Ralph's generator wrote at its head (the normalized generation); RALPH_HEAD_FIXTURES overrides. */
export const HEAD_FIXTURES_DIR =
  process.env.RALPH_HEAD_FIXTURES ?? resolve(REPO, '..', 'shared', 'fixtures', 'ralph4days-head');
export const HEAD_FIXTURES = [...FIXTURES, '05-desktop-templates.db'] as const;
export const HEAD_FIXTURE_SKIP = fixtureSkip(
  HEAD_FIXTURES_DIR,
  HEAD_FIXTURES,
  "Ralph head's fixtures",
  'RALPH_HEAD_FIXTURES',
);

/**
 * What runs the server in the end-to-end helpers: `node` (default: Node on dist/ralph-mcp.js), `bun`
 * (Bun on the same file; BUN names its binary, else the bun devDependency), `exe` (the Node single
 * executable, RALPH_MCP_TEST_EXE, else dist/ralph-mcp-linux-x64) or `bunexe` (the Bun single
 * executable, RALPH_MCP_TEST_BUN_EXE: scripts/run-tests.mjs copies dist/ralph-mcp-bun-linux-x64 into a
 * directory with no node_modules above it and runs the tests with no `node` on PATH).
 * scripts/run-tests.mjs runs the end-to-end files once more under each of the other three.
 */
export const SERVER_RUNTIME = (process.env.RALPH_MCP_TEST_RUNTIME ?? 'node') as 'node' | 'bun' | 'exe' | 'bunexe';
if (!['node', 'bun', 'exe', 'bunexe'].includes(SERVER_RUNTIME))
  throw new Error(`RALPH_MCP_TEST_RUNTIME must be node, bun, exe or bunexe, got ${SERVER_RUNTIME}`);
/** Whether the server runs under Bun (bun:sqlite its driver): Bun on the bundle, or the Bun executable. */
export const UNDER_BUN = SERVER_RUNTIME === 'bun' || SERVER_RUNTIME === 'bunexe';
export const BUN = process.env.BUN ?? join(REPO, 'node_modules', '.bin', 'bun');
export const EXE = process.env.RALPH_MCP_TEST_EXE ?? join(REPO, 'dist', 'ralph-mcp-linux-x64');
/** The single executables as built beside the bundle (npm run build:exe, npm run build:exe:bun). */
export const EXE_BUILT = join(REPO, 'dist', `ralph-mcp-${process.platform}-${process.arch}`);
export const BUN_EXE_BUILT = join(REPO, 'dist', `ralph-mcp-bun-${process.platform}-${process.arch}`);
const BUN_EXE_COPY = process.env.RALPH_MCP_TEST_BUN_EXE;
if (SERVER_RUNTIME === 'bunexe' && !BUN_EXE_COPY)
  throw new Error(
    'RALPH_MCP_TEST_RUNTIME=bunexe runs through scripts/run-tests.mjs, which copies the Bun executable apart (RALPH_MCP_TEST_BUN_EXE)',
  );

/** The command line that runs the server with `args` under SERVER_RUNTIME. */
export function serverCommand(args: readonly string[]): { command: string; args: string[] } {
  if (SERVER_RUNTIME === 'bun') return { command: BUN, args: [CLI, ...args] };
  if (SERVER_RUNTIME === 'exe') return { command: EXE, args: [...args] };
  if (SERVER_RUNTIME === 'bunexe') return { command: BUN_EXE_COPY!, args: [...args] };
  return { command: process.execPath, args: [CLI, ...args] };
}

/** What `config` writes to launch the server under SERVER_RUNTIME (domain/packageInfo.ts serverLaunch). */
export function launchOfRuntime(): { command: string; args: string[] } {
  if (SERVER_RUNTIME === 'bun') return { command: realpathSync(BUN), args: [CLI] };
  if (SERVER_RUNTIME === 'exe') return { command: EXE, args: [] };
  if (SERVER_RUNTIME === 'bunexe') return { command: BUN_EXE_COPY!, args: [] };
  return { command: process.execPath, args: [CLI] };
}
