import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';

/**
 * Resource subscriptions: one watcher per store (per server process), shared by its sessions. While
 * anything is subscribed a timer checks `PRAGMA data_version`, which changes when another connection
 * commits; our own commits do not change it on our connection, so each of them schedules a check too.
 */
export const WATCH_INTERVAL_MS = 250;

/** Receives the uri of a subscribed resource that changed. */
export type Notify = (uri: string) => void;

/** The fingerprint of a subscribable resource (null: it does not exist now). */
export type Fingerprint = (uri: string) => string | null;

interface Watched {
  fingerprint: string | null;
  subscribers: Set<Notify>;
}

export class ChangeWatcher {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private offCommit: (() => void) | undefined;
  private version: number | undefined;
  private commits = 0;
  private seenCommits = 0;
  private checkScheduled = false;
  /** Checks that found a change and recomputed fingerprints (for tests and logs). */
  recomputes = 0;

  constructor(
    private readonly store: RalphStore,
    private readonly fingerprint: Fingerprint,
    private readonly log: Logger,
    private readonly intervalMs: number = WATCH_INTERVAL_MS,
  ) {}

  /** Subscribes `notify` to uri (again: no effect). The resource's current fingerprint is the baseline. */
  subscribe(uri: string, notify: Notify): void {
    this.start(); // the version first: a commit after it and before the fingerprint is seen at the next check
    let w = this.watched.get(uri);
    if (!w) {
      w = { fingerprint: this.fingerprint(uri), subscribers: new Set() };
      this.watched.set(uri, w);
    }
    w.subscribers.add(notify);
  }

  unsubscribe(uri: string, notify: Notify): void {
    const w = this.watched.get(uri);
    if (!w) return;
    w.subscribers.delete(notify);
    if (w.subscribers.size === 0) this.watched.delete(uri);
    if (this.watched.size === 0) this.stop();
  }

  /** Every subscription of one session (it closed). */
  unsubscribeAll(notify: Notify): void {
    for (const uri of [...this.watched.keys()]) this.unsubscribe(uri, notify);
  }

  /** Whether the timer runs (only while something is subscribed). */
  get active(): boolean {
    return this.timer !== undefined;
  }

  /** How many resources are watched (for tests and logs). */
  get size(): number {
    return this.watched.size;
  }

  private start(): void {
    if (this.timer) return;
    this.version = this.store.watch.dataVersion();
    this.seenCommits = this.commits;
    this.offCommit = this.store.db.onCommit(() => {
      this.commits++;
      this.scheduleCheck();
    });
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref(); // never what keeps a process alive
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.offCommit?.();
    this.offCommit = undefined;
  }

  /** After a commit of ours: once the call that wrote has answered (a burst of writes, one check). */
  private scheduleCheck(): void {
    if (this.checkScheduled) return;
    this.checkScheduled = true;
    setImmediate(() => {
      this.checkScheduled = false;
      this.check();
    });
  }

  private check(): void {
    if (!this.timer) return;
    if (!this.store.db.open) {
      this.stop(); // shutting down
      return;
    }
    try {
      const version = this.store.watch.dataVersion();
      if (version === this.version && this.commits === this.seenCommits) return;
      this.version = version;
      this.seenCommits = this.commits;
      this.recomputes++;
      for (const [uri, w] of this.watched) {
        const now = this.fingerprint(uri);
        if (now === w.fingerprint) continue;
        w.fingerprint = now;
        for (const notify of w.subscribers) notify(uri);
      }
    } catch (err) {
      // A locked or vanished file: the next check tries again.
      this.log.warn({ err }, 'could not check subscribed resources for changes');
    }
  }
}

const watchers = new WeakMap<RalphStore, ChangeWatcher>();

/** The process's watcher for this store (one store per server process). */
export function watcherFor(store: RalphStore, fingerprint: Fingerprint, log: Logger): ChangeWatcher {
  let w = watchers.get(store);
  if (!w) {
    w = new ChangeWatcher(store, fingerprint, log);
    watchers.set(store, w);
  }
  return w;
}
