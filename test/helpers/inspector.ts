import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './env.js';
import { tempDir } from './project.js';

/**
 * The MCP Inspector (a dev dependency, 2.x), run with this node; see test/e2e/node/inspector.test.ts for
 * its ways. Its CLI starts only when argv[1] is its own file (it compares resolved paths), so the path is
 * the real one: node_modules may be a symlink (a worktree's is).
 */
const INSPECTOR = realpathSync(join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector'));
const CLI_ENTRY = join(INSPECTOR, 'clients', 'cli', 'build', 'index.js');
/** The `mcp-inspector` bin: with `--cli` it loads the same CLI in its own process. */
const LAUNCHER = join(INSPECTOR, 'clients', 'launcher', 'build', 'index.js');
const TIMEOUT_MS = 30_000;

/** Where the Inspector keeps its catalog, client config and OAuth state: a temp dir, never the user's home. */
let stateDir: string | undefined;
function inspectorEnv(): NodeJS.ProcessEnv {
  stateDir ??= tempDir('ralph-mcp-inspector-');
  return {
    MCP_STORAGE_DIR: join(stateDir, 'storage'),
    MCP_CATALOG_PATH: join(stateDir, 'mcp.json'),
    MCP_CLIENT_CONFIG_PATH: join(stateDir, 'client.json'),
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One inspector invocation: target (a command line or a URL), then the method and its options. */
export function inspect(target: string[], method: string[], viaBin = false): Promise<Run> {
  const entry = viaBin ? [LAUNCHER, '--cli'] : [CLI_ENTRY];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...target, ...method], {
      env: { ...process.env, ...inspectorEnv() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`inspector timed out after ${TIMEOUT_MS} ms: ${method.join(' ')}\n${stderr}`));
    }, TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The Inspector CLI's own error line (`{"error": {code, message}}` on stderr) of a failed run. */
export function inspectorError(r: Run): { code: string; message: string } {
  const line = r.stderr
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"error":'));
  if (!line) throw new Error(`no Inspector error line (exit ${r.code}):\n${r.stderr}`);
  return (JSON.parse(line) as { error: { code: string; message: string } }).error;
}
