import type { Logger } from 'pino';
import type { RalphStore } from '../store/store.js';

/**
 * Resource subscriptions: one watcher per store (per server process), shared by its sessions. While
 * anything is subscribed a timer checks `PRAGMA data_version`, which changes when another connection
 * commits; our own commits do not change it on our connection, so each of them schedules a check too.
 * A resource is watched once under its canonical key (resources.ts), whoever subscribed and however
 * they spelled it; each subscriber is notified with the uri it subscribed with.
 */
export const WATCH_INTERVAL_MS = 250;
/** Subscriptions one session may hold (docs/startup-and-serving.md, "Resource subscriptions"). */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1000;
/** Subscriptions all sessions of one server process may hold together. */
export const MAX_SUBSCRIPTIONS_PER_SERVER = 10_000;
/**
 * Resources fingerprinted in one turn of the event loop when a check found a commit: between turns the
 * other sessions' requests are answered, so many subscriptions slow the notifications, not the server.
 */
export const CHECK_BATCH = 100;

/** Receives the uri (as the subscriber spelled it) of a subscribed resource that changed. */
export type Notify = (uri: string) => void;

/** The fingerprint of a subscribable resource, by canonical key (null: it does not exist now). */
export type Fingerprint = (key: string) => string | null;

/** Why a subscription was refused: one of the two caps. */
export type SubscribeRefusal = 'session' | 'server';

interface Watched {
  fingerprint: string | null;
  /** Each subscriber, with the uri it subscribed with (its latest spelling). */
  subscribers: Map<Notify, string>;
}

export class ChangeWatcher {
  private readonly watched = new Map<string, Watched>();
  /** Subscriptions per subscriber (session), for its cap. */
  private readonly held = new Map<Notify, number>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;
  private offCommit: (() => void) | undefined;
  private version: number | undefined;
  private commits = 0;
  private seenCommits = 0;
  private checkScheduled = false;
  /** The keys a check is still fingerprinting, batch by batch; undefined when no check is under way. */
  private scan: { keys: string[]; next: number } | undefined;
  /** A commit was seen while a check was under way: scan again once it ends. */
  private rescan = false;
  /** Checks that found a change and finished recomputing fingerprints (for tests and logs). */
  recomputes = 0;

  constructor(
    private readonly store: RalphStore,
    private readonly fingerprint: Fingerprint,
    private readonly log: Logger,
    private readonly intervalMs: number = WATCH_INTERVAL_MS,
    private readonly caps = { session: MAX_SUBSCRIPTIONS_PER_SESSION, server: MAX_SUBSCRIPTIONS_PER_SERVER },
  ) {}

  /**
   * Subscribes `notify` to the resource `key`, to be told as `uri`. Again (any spelling): no new
   * subscription, the latest spelling is kept. The resource's current fingerprint is the baseline.
   * Returns the cap that refuses it, if one does.
   */
  subscribe(key: string, notify: Notify, uri: string = key): SubscribeRefusal | undefined {
    let w = this.watched.get(key);
    if (w?.subscribers.has(notify)) {
      w.subscribers.set(notify, uri);
      return undefined;
    }
    const mine = this.held.get(notify) ?? 0;
    if (mine >= this.caps.session) return 'session';
    if (this.total >= this.caps.server) return 'server';
    this.start(); // the version first: a commit after it and before the fingerprint is seen at the next check
    if (!w) {
      w = { fingerprint: this.fingerprint(key), subscribers: new Map() };
      this.watched.set(key, w);
    }
    w.subscribers.set(notify, uri);
    this.held.set(notify, mine + 1);
    this.total++;
    return undefined;
  }

  unsubscribe(key: string, notify: Notify): void {
    const w = this.watched.get(key);
    if (!w?.subscribers.delete(notify)) return;
    const mine = (this.held.get(notify) ?? 1) - 1;
    if (mine === 0) this.held.delete(notify);
    else this.held.set(notify, mine);
    this.total--;
    if (w.subscribers.size === 0) this.watched.delete(key);
    if (this.watched.size === 0) this.stop();
  }

  /** Every subscription of one session (it closed). */
  unsubscribeAll(notify: Notify): void {
    if (!this.held.has(notify)) return;
    for (const key of [...this.watched.keys()]) this.unsubscribe(key, notify);
  }

  /** Whether the timer runs (only while something is subscribed). */
  get active(): boolean {
    return this.timer !== undefined;
  }

  /** How many resources are watched (for tests and logs). */
  get size(): number {
    return this.watched.size;
  }

  /** How many subscriptions all sessions hold (for tests and logs). */
  get subscriptions(): number {
    return this.total;
  }

  private start(): void {
    if (this.timer) return;
    this.version = this.store.watch.dataVersion();
    this.seenCommits = this.commits;
    this.offCommit = this.store.db.onCommit((what) => {
      if (what === 'index') return; // the search index's catch-up: no resource changed
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
    this.scan = undefined;
    this.rescan = false;
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
    } catch (err) {
      // A locked or vanished file: the next check tries again.
      this.log.warn({ err }, 'could not check subscribed resources for changes');
      return;
    }
    if (this.scan)
      this.rescan = true; // the one under way may have read its first batches before this commit
    else this.startScan();
  }

  private startScan(): void {
    this.scan = { keys: [...this.watched.keys()], next: 0 };
    this.scanBatch();
  }

  /** Fingerprints the next CHECK_BATCH watched resources; the rest on a later turn of the event loop. */
  private scanBatch(): void {
    const scan = this.scan;
    if (!scan || !this.timer || !this.store.db.open) return; // stopped meanwhile
    try {
      const end = Math.min(scan.next + CHECK_BATCH, scan.keys.length);
      for (; scan.next < end; scan.next++) {
        const key = scan.keys[scan.next]!;
        const w = this.watched.get(key);
        if (!w) continue; // unsubscribed meanwhile
        const now = this.fingerprint(key);
        if (now === w.fingerprint) continue;
        w.fingerprint = now;
        for (const [notify, uri] of w.subscribers) notify(uri);
      }
    } catch (err) {
      // A locked or vanished file: the next check tries again from the start.
      this.log.warn({ err }, 'could not check subscribed resources for changes');
      this.version = undefined;
      this.scan = undefined;
      return;
    }
    if (scan.next < scan.keys.length) {
      setImmediate(() => this.scanBatch());
      return;
    }
    this.scan = undefined;
    if (this.rescan) {
      this.rescan = false;
      this.startScan();
      return;
    }
    this.recomputes++;
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
