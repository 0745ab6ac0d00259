import type { Logger } from 'pino';
import { SEARCH_BOUNDS } from '../store/searchBounds.js';
import type { RalphStore } from '../store/store.js';

/**
 * The search index's catch-up between requests: after a call that reads the index left more queued than
 * a create compares one by one, the server re-indexes SEARCH_BOUNDS.sliceRows tasks per turn of its event
 * loop, each slice its own transaction, so a rewrite of every title by another program is caught up
 * without any request (this session's or another connection's) waiting for all of it.
 */
const running = new WeakSet<RalphStore>();

export function catchUpBetweenRequests(store: RalphStore, log: Logger): void {
  if (running.has(store)) return;
  running.add(store);
  const slice = (): void => {
    try {
      if (
        store.db.open &&
        store.search.catchUp(0) > SEARCH_BOUNDS.pendingTitles &&
        store.search.catchUp(SEARCH_BOUNDS.sliceRows) > 0
      ) {
        setImmediate(slice);
        return;
      }
    } catch (err) {
      // A busy database or a read-only file: the next search catches up its own chunk instead.
      log.warn({ err }, 'search index catch-up stopped');
    }
    running.delete(store);
  };
  setImmediate(slice);
}
