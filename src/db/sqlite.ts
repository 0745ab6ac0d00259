import { createRequire } from 'node:module';
import BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver of this runtime (better-sqlite3 under Node, `bun:sqlite` under Bun, which cannot load
 * the Node addon), narrowed to the calls ralph-mcp makes so the rest of the code holds one connection type.
 * Bun's driver has no SQL functions defined in JavaScript (`fn`), so callers check their clock between statements.
 */
export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement {
  /** The first row, or undefined when there is none (never null). */
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): RunResult;
}

export interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  /** `PRAGMA <text>`: the rows, or with `simple` the first column of the first row. */
  pragma(text: string, options?: { simple: boolean }): unknown;
  /** `fn` as one transaction: `.immediate()` takes the write lock first; nested calls are savepoints. */
  transaction<T>(fn: () => T): { (): T; immediate(): T };
  readonly inTransaction: boolean;
  readonly open: boolean;
  close(): void;
  /**
   * Defines a SQL function of one argument, called for every row (not deterministic); undefined where the
   * runtime has no such thing (Bun).
   */
  readonly fn?: (name: string, impl: (arg: unknown) => unknown) => void;
}

export interface ConnectOptions {
  readonly?: boolean;
  /** Refuse to create the file (every open of Ralph's database; not an in-memory one). */
  fileMustExist?: boolean;
  /** Busy timeout in milliseconds. */
  timeout?: number;
}

/** Which driver this process uses. */
export const RUNTIME: 'bun' | 'node' =
  typeof (process.versions as Record<string, string | undefined>).bun === 'string' ? 'bun' : 'node';

// Imported statically so that bundles carry it (the single executable has no node_modules); under Bun
// the import gives Bun's placeholder module, which is never called.
const requireHere = createRequire(import.meta.url);

/**
 * better-sqlite3's compiled addon, when not found beside its package: the single executable loads its
 * own copy and hands it over here before the first open.
 */
let nativeBinding: object | undefined;
export function useNativeBinding(addon: object): void {
  nativeBinding = addon;
}

/** Opens a connection with the driver of this runtime. */
export function connectSqlite(path: string, options: ConnectOptions = {}): Connection {
  return RUNTIME === 'bun' ? openBun(path, options) : openNode(path, options);
}

/**
 * The npm bundle carries better-sqlite3's JavaScript but not its addon, which stays in the installed
 * package (built for the machine); elsewhere better-sqlite3's own `bindings` search finds it.
 */
let installedAddon: string | null | undefined;
function installedAddonPath(): string | undefined {
  if (installedAddon === undefined) {
    try {
      installedAddon = requireHere.resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      installedAddon = null;
    }
  }
  return installedAddon ?? undefined;
}

function openNode(path: string, options: ConnectOptions): Connection {
  const binding = nativeBinding ?? installedAddonPath();
  const raw = new BetterSqlite3(path, {
    fileMustExist: options.fileMustExist ?? false,
    readonly: options.readonly ?? false,
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    // The addon object itself is accepted at run time (better-sqlite3's types say only a path).
    ...(binding ? { nativeBinding: binding as unknown as string } : {}),
  });
  const conn = raw as unknown as Connection & { fn?: Connection['fn'] };
  // better-sqlite3's own API already is this interface; `fn` is the one name added.
  Object.defineProperty(conn, 'fn', {
    // better-sqlite3 takes the SQL arity from the function's length: always one argument here.
    value: (name: string, impl: (arg: unknown) => unknown) =>
      raw.function(name, { deterministic: false }, (arg: unknown) => impl(arg)),
  });
  return conn;
}

/** The subset of bun:sqlite we call (typed here: the bundle is compiled against Node's types). */
interface BunStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): RunResult;
}
interface BunDatabase {
  prepare(sql: string): BunStatement;
  run(sql: string): unknown;
  transaction<T>(fn: () => T): { (): T; immediate(): T };
  readonly inTransaction: boolean;
  close(): void;
}

function openBun(path: string, options: ConnectOptions): Connection {
  const { Database } = requireHere('bun:sqlite') as {
    Database: new (path: string, options: Record<string, boolean>) => BunDatabase;
  };
  const readonly = options.readonly ?? false;
  const mode: Record<string, boolean> = readonly
    ? { readonly: true }
    : { readwrite: true, create: !(options.fileMustExist ?? false) };
  // strict: named parameters bind without their prefix, as better-sqlite3 binds them.
  const raw = new Database(path, { ...mode, strict: true });
  let open = true;
  const wrap = (s: BunStatement): Statement => ({
    get: (...p) => s.get(...p) ?? undefined,
    all: (...p) => s.all(...p),
    run: (...p) => s.run(...p),
  });
  const conn: Connection = {
    prepare: (sql) => wrap(raw.prepare(sql)),
    exec: (sql) => void raw.run(sql),
    pragma: (text, opts) => {
      const rows = raw.prepare(`PRAGMA ${text}`).all() as Record<string, unknown>[];
      return opts?.simple ? (rows[0] ? Object.values(rows[0])[0] : undefined) : rows;
    },
    transaction: (fn) => raw.transaction(fn),
    get inTransaction() {
      return raw.inTransaction;
    },
    get open() {
      return open;
    },
    close: () => {
      if (!open) return;
      open = false;
      raw.close();
    },
  };
  try {
    if (options.timeout !== undefined) conn.pragma(`busy_timeout = ${Math.trunc(options.timeout)}`);
  } catch (err) {
    conn.close();
    throw err;
  }
  return conn;
}

/** SQLite's (extended) result code name of a driver error ('SQLITE_BUSY', …), or undefined for any other error. */
export function sqliteCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  // better-sqlite3: SqliteError; bun:sqlite: SQLiteError. Both carry the code's name in `code`.
  if (err.name !== 'SqliteError' && err.name !== 'SQLiteError') return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}
