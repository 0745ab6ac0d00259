import Database from 'better-sqlite3';
import { ToolError } from '../errors.js';

/**
 * Our handle on Ralph's SQLite file.
 *
 * The Ralph desktop app may have the same file open, and other ralph-mcp sessions too. So:
 * WAL (readers never block the writer), foreign keys on (Ralph's ON DELETE rules are our rules),
 * a busy timeout (wait for the other writer instead of failing), and every read-then-write in one
 * BEGIN IMMEDIATE transaction (take the write lock before reading, so no one changes what we read).
 */
export const BUSY_TIMEOUT_MS = 5000;

export type Row = Record<string, unknown>;

export class Db {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly raw: Database.Database) {}

  static open(path: string, options: { readonly?: boolean } = {}): Db {
    const raw = new Database(path, {
      fileMustExist: true,
      readonly: options.readonly ?? false,
      timeout: BUSY_TIMEOUT_MS,
    });
    if (!options.readonly) {
      // Only switch when needed: changing the journal mode takes a write lock.
      const mode = raw.pragma('journal_mode', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') raw.pragma('journal_mode = WAL');
    }
    raw.pragma('foreign_keys = ON');
    return new Db(raw);
  }

  /** Prepared statements are made on first use and kept: most sessions touch a handful of queries. */
  stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  get<T = Row>(sql: string, ...params: unknown[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined;
  }

  all<T = Row>(sql: string, ...params: unknown[]): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  run(sql: string, ...params: unknown[]): Database.RunResult {
    return this.stmt(sql).run(...params);
  }

  /** Runs fn inside BEGIN IMMEDIATE ... COMMIT; any throw rolls everything back. */
  write<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate();
  }

  close(): void {
    this.statements.clear();
    if (this.raw.open) this.raw.close();
  }
}

/** Turns SQLite's own failures into tool errors an agent can act on. */
export function mapSqliteError(err: unknown): ToolError | undefined {
  if (!(err instanceof Database.SqliteError)) return undefined;
  if (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED' || err.code.startsWith('SQLITE_BUSY_')) {
    return new ToolError('busy', `the database stayed locked by another program for over ${BUSY_TIMEOUT_MS} ms; retry shortly`);
  }
  if (err.code.startsWith('SQLITE_CONSTRAINT')) {
    return new ToolError('conflict', `the database refused the write: ${err.message}`);
  }
  if (err.code === 'SQLITE_READONLY' || err.code.startsWith('SQLITE_READONLY_')) {
    return new ToolError('io_error', 'the database file is read-only; nothing was written');
  }
  if (err.code.startsWith('SQLITE_IOERR') || err.code === 'SQLITE_CANTOPEN') {
    return new ToolError('io_error', `the database file could not be read or written (${err.code}); nothing was written`);
  }
  if (err.code === 'SQLITE_FULL') {
    return new ToolError('io_error', 'the disk is full; nothing was written');
  }
  return undefined;
}
