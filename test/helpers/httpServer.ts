import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { serverCommand } from './env.js';

/** The line a server without --auth-token / RALPH_MCP_TOKEN prints once on stderr, with its generated token. */
export const GENERATED_TOKEN_LINE = /^ralph-mcp: HTTP bearer token for this run \(generated[^)]*\): (\S+)$/m;

/**
 * Starts the built server with `--transport http --port 0` and resolves once it logs the port it got,
 * with the bearer token clients must send (the one given, else the one it generated and printed).
 * stdout is collected so a test can check that nothing was ever written there.
 */
export async function startHttpServer(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; port: number; token: string; stdout: () => string; stderr: () => string }> {
  const cmd = serverCommand([...args, '--transport', 'http', '--port', '0']);
  const child = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  // The "listening" log line is on stderr, or in the --log-file when one is given.
  const logFile = args.includes('--log-file') ? args[args.indexOf('--log-file') + 1]! : undefined;
  const log = () => (logFile ? (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '') : err);
  const port = await new Promise<number>((resolve, reject) => {
    const check = () => {
      const text = log();
      const m = /"msg":"listening"/.test(text) && /"port":(\d+)/.exec(text);
      if (m) {
        clearInterval(poll);
        resolve(Number(m[1]));
      }
    };
    const poll = setInterval(check, 50);
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      check();
    });
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`http server exited ${code}: ${err}`));
    });
  });
  const given = args.indexOf('--auth-token');
  const token = given >= 0 ? args[given + 1]! : (env.RALPH_MCP_TOKEN ?? GENERATED_TOKEN_LINE.exec(err)?.[1]);
  if (!token) throw new Error(`no bearer token: neither given nor printed on stderr:\n${err}`);
  return { child, port, token, stdout: () => out, stderr: () => err };
}
