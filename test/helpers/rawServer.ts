import { spawn } from 'node:child_process';
import { serverCommand } from './env.js';

/**
 * The server over stdio with a bare JSON-RPC line reader: for tests that must send many requests at
 * once, signal the process mid-stream, or see every byte it writes on stdout. `responses` holds every
 * response so far, by id; `junk` every line on stdout that was not JSON-RPC (it must stay empty).
 */
export async function startRaw(args: string[]) {
  const cmd = serverCommand(args);
  const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const responses = new Map<number, any>();
  const waiters = new Map<number, (m: any) => void>();
  const junk: string[] = [];
  let err = '';
  let buf = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  child.stdout!.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        junk.push(line);
        continue;
      }
      if (msg?.jsonrpc !== '2.0') junk.push(line);
      if (typeof msg?.id === 'number') {
        responses.set(msg.id, msg);
        waiters.get(msg.id)?.(msg);
        waiters.delete(msg.id);
      }
    }
  });
  child.stdin!.on('error', () => undefined); // writing to a server we just killed
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let nextId = 1;
  const send = (msg: object) => child.stdin!.write(`${JSON.stringify(msg)}\n`);
  const request = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++;
      waiters.set(id, resolve);
      send({ jsonrpc: '2.0', id, method, params });
      void exited.then(() => waiters.has(id) && reject(new Error(`server exited before answering ${method}: ${err}`)));
    });
  const call = (name: string, args: object) => request('tools/call', { name, arguments: args });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { child, responses, junk, send, request, call, exited, stderr: () => err };
}
