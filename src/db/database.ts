import { connectSqlite, sqliteCode, type Connection, type RunResult, type Statement } from './sqlite.js';
import { StartupError, ToolError } from '../domain/errors.js';

/**
 * Our handle on Ralph's SQLite file, which Ralph and other ralph-mcp sessions may have open too: hence WAL,
 * foreign keys on (Ralph's ON DELETE rules are ours), a busy timeout, and every read-then-write in one
 * BEGIN IMMEDIATE transaction, so no one changes what we read.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
/** The default; the timeout in force is busyTimeoutMs() (RALPH_MCP_BUSY_TIMEOUT_MS). */
export const BUSY_TIMEOUT_MS = DEFAULT_BUSY_TIMEOUT_MS;
export const BUSY_TIMEOUT_ENV = 'RALPH_MCP_BUSY_TIMEOUT_MS';
const MAX_BUSY_TIMEOUT_MS = 600_000;

/**
 * How long a write waits for another program's write lock before failing with `busy`
 * (RALPH_MCP_BUSY_TIMEOUT_MS). A malformed value fails the launch rather than silently falling back.
 */
export function busyTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[BUSY_TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_BUSY_TIMEOUT_MS;
  const text = raw.trim();
  if (!/^\d{1,7}$/.test(text) || Number(text) > MAX_BUSY_TIMEOUT_MS) {
    throw new StartupError(
      `${BUSY_TIMEOUT_ENV} must be a whole number of milliseconds from 0 to ${MAX_BUSY_TIMEOUT_MS}, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(text);
}

export const SYNCHRONOUS_ENV = 'RALPH_MCP_SYNCHRONOUS';
const SYNCHRONOUS_MODES = ['NORMAL', 'FULL', 'EXTRA'] as const;

/**
 * How hard a commit waits for the disk (RALPH_MCP_SYNCHRONOUS): default NORMAL, as Ralph's own connection
 * uses, which survives any process crash but may lose the last answered writes to a power loss or OS crash.
 */
export function synchronousMode(env: NodeJS.ProcessEnv = process.env): (typeof SYNCHRONOUS_MODES)[number] {
  const raw = env[SYNCHRONOUS_ENV];
  if (raw === undefined || raw.trim() === '') return 'NORMAL';
  const mode = raw.trim().toUpperCase();
  if (!(SYNCHRONOUS_MODES as readonly string[]).includes(mode)) {
    throw new StartupError(
      `${SYNCHRONOUS_ENV} must be one of ${SYNCHRONOUS_MODES.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  }
  return mode as (typeof SYNCHRONOUS_MODES)[number];
}

/** The timeout in force, for messages (a malformed variable has already failed the launch). */
function busyTimeoutForMessages(): number {
  try {
    return busyTimeoutMs();
  } catch {
    return DEFAULT_BUSY_TIMEOUT_MS;
  }
}

export type Row = Record<string, unknown>;

interface OpenOptions {
  readonly?: boolean;
  /**
   * Reads only, on a connection that could write (PRAGMA query_only, no journal-mode switch): unlike a
   * read-only one it removes at close the -wal and -shm files it made, as the last connection does.
   */
  queryOnly?: boolean;
}

function connect(path: string, options: OpenOptions, beforeWal?: (raw: Connection) => void): Connection {
  const raw = connectSqlite(path, {
    fileMustExist: true,
    readonly: options.readonly ?? false,
    timeout: busyTimeoutMs(),
  });
  try {
    // Checks that must see the file exactly as found: switching to WAL rewrites its header.
    beforeWal?.(raw);
    // ignore_check_constraints: integrity_check then checks what it checks on a read-only connection
    // (a CHECK violation is not corruption; doctor names such rows itself, with the fix).
    if (options.queryOnly) {
      raw.pragma('query_only = ON');
      raw.pragma('ignore_check_constraints = ON');
    } else if (!options.readonly) {
      // Only switch when needed: changing the journal mode takes a write lock.
      const mode = raw.pragma('journal_mode', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') raw.pragma('journal_mode = WAL');
    }
    raw.pragma('foreign_keys = ON');
    // Per connection (nothing is written to the file); a constant chosen from a fixed list.
    raw.pragma(SYNCHRONOUS_PRAGMA[synchronousMode()]);
  } catch (err) {
    raw.close();
    throw err;
  }
  return raw;
}

const SYNCHRONOUS_PRAGMA = {
  NORMAL: 'synchronous = NORMAL',
  FULL: 'synchronous = FULL',
  EXTRA: 'synchronous = EXTRA',
} as const;

const isReadOnlyError = (err: unknown): boolean => {
  const code = sqliteCode(err);
  // a replaced file is not reopened behind the session's back
  return (
    code !== undefined &&
    (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) &&
    code !== 'SQLITE_READONLY_DBMOVED'
  );
};

/** What a committed write changed: Ralph's data (or ours beside it), or only a derived index. */
export type CommitKind = 'data' | 'index';

export class Db {
  private readonly statements = new Map<string, Statement>();
  private conn: Connection;
  /**
   * Set when a write found the database read-only. SQLite opens a file it may not write read-only for
   * good, so once the cause is gone (permissions fixed, file system remounted read-write) only a new
   * connection can write: the next write opens one first.
   */
  private reopenBeforeWrite = false;
  /** Called after each transaction of this connection commits (not after a nested one's savepoint). */
  private readonly commitListeners = new Set<(what: CommitKind) => void>();
  /** Set while read() runs fn: a write then would upgrade a snapshot that may be stale (SQLITE_BUSY_SNAPSHOT). */
  private reading = false;

  constructor(
    raw: Connection,
    private readonly source?: { path: string; options: OpenOptions },
  ) {
    this.conn = raw;
  }

  /** The driver's connection (replaced after a write found the database read-only; see write()). */
  get raw(): Connection {
    return this.conn;
  }

  /** `beforeWal` runs on the new connection before it switches the file to WAL (and may refuse it). */
  static open(path: string, options: OpenOptions = {}, beforeWal?: (db: Db) => void): Db {
    return new Db(connect(path, options, beforeWal && ((raw) => beforeWal(new Db(raw)))), { path, options });
  }

  /**
   * Prepared statements are made on first use and kept. Write a LIMIT or OFFSET as
   * `LIMIT CAST(? AS INTEGER)`, never `LIMIT ?`: a bare bound value makes every run cost a fresh prepare
   * (test/unit/queryPlans.test.ts keeps it so).
   */
  stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.conn.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  get<T = Row>(sql: string, ...params: unknown[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined;
  }

  /**
   * The rows, in a new array. To V8 an empty array and a full one have different maps: a hot `.map` or
   * `.filter` compiled having seen one is thrown away and compiled again at the other (get_task's first
   * thousands of calls spent more in TurboFan than in its own code), so the readers on that path return
   * `[]` for no rows before mapping them (docs/startup-and-serving.md, "The call path against the floor").
   */
  all<T = Row>(sql: string, ...params: unknown[]): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  run(sql: string, ...params: unknown[]): RunResult {
    return this.stmt(sql).run(...params);
  }

  /**
   * Runs fn inside BEGIN IMMEDIATE ... COMMIT; any throw rolls everything back. `what` tells the commit
   * listeners whether Ralph's data may have changed or only an index of ours (nothing a reader sees).
   */
  write<T>(fn: () => T, what: CommitKind = 'data'): T {
    if (this.reading) throw new Error('a write inside read(): write before the snapshot, or outside it');
    if (this.reopenBeforeWrite) this.reopen();
    let result: T;
    try {
      result = this.conn.transaction(fn).immediate();
    } catch (err) {
      if (isReadOnlyError(err) && this.source && !this.source.options.readonly) this.reopenBeforeWrite = true;
      throw err;
    }
    if (!this.conn.inTransaction) {
      for (const listener of this.commitListeners) {
        try {
          listener(what);
        } catch {
          // the write has committed: a listener's failure must not turn it into an error
        }
      }
    }
    return result;
  }

  /**
   * Runs fn's reads on one snapshot of the database: one deferred read transaction instead of one per
   * statement, so that an answer put together from several statements cannot mix states, and SQLite takes
   * its WAL read lock once (each statement on its own costs two fcntl and an fstat). Inside a transaction
   * already (a write's own reads), fn runs in that one. fn must not write.
   */
  read<T>(fn: () => T): T {
    if (this.conn.inTransaction) return fn();
    this.stmt('BEGIN').run();
    this.reading = true;
    try {
      const out = fn();
      // A promise would be settled after the snapshot ended: its reads would run outside it.
      if (out instanceof Promise) throw new Error('read(): fn returned a promise; reads must be synchronous');
      // (An error SQLite rolled back itself, caught inside fn, leaves nothing to commit.)
      if (this.conn.inTransaction) this.stmt('COMMIT').run();
      return out;
    } finally {
      this.reading = false;
      if (this.conn.inTransaction) this.stmt('ROLLBACK').run();
    }
  }

  /**
   * Runs `listener` after every committed write of this connection; returns the function that removes
   * it. (PRAGMA data_version sees only other connections' commits: this is how a watcher sees ours.)
   */
  onCommit(listener: (what: CommitKind) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /** Whether a write's transaction is open (a read() snapshot is not one): what it changed may roll back. */
  get writing(): boolean {
    return this.conn.inTransaction && !this.reading;
  }

  /** Whether the connection is still open (closed at shutdown). */
  get open(): boolean {
    return this.conn.open;
  }

  /**
   * A fresh connection in place of one SQLite opened read-only. The old one is closed first: SQLite shares
   * a file's -shm mapping within a process, so a new connection beside it would inherit the read-only mapping.
   */
  private reopen(): void {
    if (!this.source || this.conn.inTransaction) return;
    this.statements.clear();
    this.conn.close();
    try {
      this.conn = connect(this.source.path, this.source.options);
      this.reopenBeforeWrite = false;
    } catch {
      this.conn = connectSqlite(this.source.path, { fileMustExist: true, readonly: true, timeout: busyTimeoutMs() });
      this.conn.pragma('foreign_keys = ON');
    }
  }

  close(): void {
    this.statements.clear();
    if (this.conn.open) this.conn.close();
  }
}

/** Turns SQLite's own failures into tool errors an agent can act on; nothing was written in each case. */
export function mapSqliteError(err: unknown): ToolError | undefined {
  const code = sqliteCode(err);
  if (code === undefined) return undefined;
  const message = (err as Error).message;
  if (
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_LOCKED' ||
    code.startsWith('SQLITE_BUSY_') ||
    code.startsWith('SQLITE_LOCKED_')
  ) {
    return new ToolError(
      'busy',
      `the database stayed locked by another program for over ${busyTimeoutForMessages()} ms (${BUSY_TIMEOUT_ENV}); nothing was written; retry shortly`,
    );
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new ToolError('conflict', `the database refused the write: ${message}`);
  }
  if (code === 'SQLITE_READONLY_DBMOVED') {
    return new ToolError(
      'io_error',
      'the database file was moved or deleted while this session had it open; nothing was written; restart the session',
    );
  }
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) {
    return new ToolError(
      'io_error',
      'the database is read-only (file permissions or a read-only file system); nothing was written. Make .ralph/db/ralph.db and its -wal and -shm files (and their folder) writable; the next call reopens it',
    );
  }
  if (code === 'SQLITE_FULL') {
    return new ToolError(
      'io_error',
      'the disk is full; nothing was written. Free space on the disk that holds the database, then retry',
    );
  }
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') {
    return new ToolError(
      'io_error',
      `the database file could not be read or written (${code}: ${message}); nothing was written`,
    );
  }
  return undefined;
}
