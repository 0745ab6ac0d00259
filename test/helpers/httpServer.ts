import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './env.js';

/**
 * Starts the built server with `--transport http --port 0` and resolves once it logs the port it got.
 * stdout is collected so a test can check that nothing was ever written there.
 */
export async function startHttpServer(args: string[]): Promise<{ child: ChildProcess; port: number; stdout: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args, '--transport', 'http', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /"msg":"listening"/.test(err) && /"port":(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`http server exited ${code}: ${err}`)));
  });
  return { child, port, stdout: () => out };
}
