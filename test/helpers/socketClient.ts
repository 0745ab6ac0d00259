import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { connect, type Socket } from 'node:net';

/** A plain Unix-socket client transport (newline-delimited JSON-RPC), as `socat - UNIX-CONNECT:PATH` would be. */
class SocketClientTransport implements Transport {
  private socket?: Socket;
  private readonly buffer = new ReadBuffer();
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;

  constructor(private readonly path: string) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = connect(this.path);
      this.socket = s;
      s.once('connect', () => resolve());
      s.once('error', reject);
      s.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) this.onmessage?.(m);
      });
      s.on('close', () => this.onclose?.());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => this.socket!.write(serializeMessage(message), () => resolve()));
  }

  async close(): Promise<void> {
    this.socket?.end();
  }
}

export async function connectSocket(path: string): Promise<Client> {
  const client = new Client({ name: 'socket-test', version: '0' });
  await client.connect(new SocketClientTransport(path));
  return client;
}
