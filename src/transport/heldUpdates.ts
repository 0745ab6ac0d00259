import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { MAX_SUBSCRIPTIONS_PER_SESSION } from '../server/watch.js';

const RESOURCE_UPDATED = 'notifications/resources/updated';

/** The uri of a resource update; undefined for any other message. */
function updatedUri(message: JSONRPCMessage): string | undefined {
  const m = message as { id?: unknown; method?: unknown; params?: { uri?: unknown } };
  if (m.id !== undefined || m.method !== RESOURCE_UPDATED || typeof m.params?.uri !== 'string') return undefined;
  return m.params.uri;
}

/**
 * Resource updates for a client that is behind (its output waits for 'drain') are held, not written: one
 * per uri however often it changes, sent once the client has read what waited. Bytes alone are the wrong
 * bound for them: an unsent write costs far more than its 80-byte line (about 1.3 KB of pending promise).
 * A subscriber that never reads costs its stream's buffer plus one update per subscription it holds.
 */
export class HeldUpdates {
  private readonly held = new Map<string, JSONRPCMessage>();
  private dropped = 0;

  constructor(private readonly log: Logger) {}

  /** Whether `message` was held: a resource update while the client is `behind`, or while others wait. */
  hold(message: JSONRPCMessage, behind: boolean): boolean {
    const uri = updatedUri(message);
    if (uri === undefined || (this.held.size === 0 && !behind)) return false;
    if (this.held.has(uri) || this.held.size < MAX_SUBSCRIPTIONS_PER_SESSION) this.held.set(uri, message);
    else this.dropped++;
    return true;
  }

  /** Hands the held updates to `send`, in the order first held. */
  release(send: (message: JSONRPCMessage) => void): void {
    if (this.held.size === 0) return;
    if (this.dropped > 0) this.log.warn({ dropped: this.dropped }, 'resource updates dropped: client not reading');
    this.dropped = 0;
    const held = [...this.held.values()];
    this.held.clear();
    for (const message of held) send(message);
  }
}
