import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { CLI } from './env.js';

/**
 * Starts the built server with `--transport socket` and resolves once its pid file names it (it is
 * written after listen). `prefix` runs before node (e.g. a umask under /bin/sh).
 */
export async function startSocketServer(
  root: string,
  socket: string,
  flags: string[] = [],
  opts: { shell?: string; nodeArgs?: string[] } = {},
): Promise<{ child: ChildProcess; stderr: () => string; stdout: () => string }> {
  const serve = ['--project', root, '--transport', 'socket', '--socket', socket, ...flags];
  const args = [...(opts.nodeArgs ?? []), CLI, ...serve];
  const [command, argv] = opts.shell
    ? ['/bin/sh', ['-c', `${opts.shell}; exec "$0" "$@"`, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const ready = () => existsSync(`${socket}.pid`) && readFileSync(`${socket}.pid`, 'utf8').trim() === String(child.pid);
  for (let waited = 0; !ready(); waited += 25) {
    if (waited > 15_000 || child.exitCode !== null)
      throw new Error(`socket server did not start (exit ${child.exitCode}): ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child, stderr: () => err, stdout: () => out };
}

export const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

/** A bare connection that has sent initialize + initialized and reads nothing (unless the test does). */
export function rawSocket(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    s.once('error', reject);
    s.once('connect', () => {
      s.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`,
      );
      s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      resolve(s);
    });
  });
}
