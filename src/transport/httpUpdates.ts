import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { HeldUpdates } from './heldUpdates.js';

/**
 * A session's HTTP transport as its server sees it. What the server sends unasked (tied to no request)
 * goes out on the session's GET stream, where the SDK queues it without bound while the client does not
 * read: so a resource update is held (HeldUpdates) while that stream waits for 'drain', and sent when it
 * drains, or with the next unasked message once no stream is behind. Public Transport members only.
 */
export function holdingUpdates(
  inner: StreamableHTTPServerTransport,
  streams: () => Iterable<ServerResponse>,
  log: Logger,
): Transport {
  const held = new HeldUpdates(log);
  let waitingOn: ServerResponse | undefined;
  const release = () => held.release((message) => void inner.send(message).catch(() => undefined));
  const behindStream = (): ServerResponse | undefined => {
    for (const res of streams()) if (res.writableNeedDrain) return res;
    return undefined;
  };
  return {
    start: () => inner.start(),
    close: () => inner.close(),
    send(message, options) {
      if (options?.relatedRequestId !== undefined || !('method' in message)) return inner.send(message, options);
      const behind = behindStream();
      if (!behind) release();
      if (!held.hold(message, behind !== undefined)) return inner.send(message, options);
      if (behind && waitingOn !== behind) {
        waitingOn = behind;
        behind.once('drain', () => {
          waitingOn = undefined;
          release();
        });
      }
      return Promise.resolve();
    },
    get sessionId() {
      return inner.sessionId;
    },
    get onmessage() {
      return inner.onmessage;
    },
    set onmessage(f) {
      inner.onmessage = f;
    },
    get onclose() {
      return inner.onclose;
    },
    set onclose(f) {
      inner.onclose = f;
    },
    get onerror() {
      return inner.onerror;
    },
    set onerror(f) {
      inner.onerror = f;
    },
  };
}
