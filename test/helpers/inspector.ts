import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { REPO } from './env.js';

/** The MCP Inspector CLI (a dev dependency), run with this node; see test/e2e/node/inspector.test.ts for its ways. */
const INSPECTOR_BUILD = join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector', 'cli', 'build');
const INSPECTOR_ENV = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
const TIMEOUT_MS = 30_000;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One inspector invocation: target (a command line or a URL), then the method and its options. */
export function inspect(target: string[], method: string[], viaBin = false, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const entry = viaBin ? [join(INSPECTOR_BUILD, 'cli.js'), '--cli'] : [join(INSPECTOR_BUILD, 'index.js')];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...target, ...method], {
      env: { ...INSPECTOR_ENV, ...env },
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
