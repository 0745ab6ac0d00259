import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  unlinkSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * ralph-mcp's cache directory for compiled code (RALPH_MCP_CACHE_DIR=off: none), made owner-only if
 * missing. What is in it is code, so it is used only while it is this user's and writable by no one else.
 */
export function cacheDir(): string | undefined {
  const set = process.env.RALPH_MCP_CACHE_DIR;
  if (set !== undefined && set.trim().toLowerCase() === 'off') return undefined;
  const dir =
    set && set.trim() !== '' ? set : join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ralph-mcp');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * An open descriptor on `file` when it is a regular file of this user, reached without a symlink, of
 * at most `maxBytes`, writable by no one else; undefined otherwise. The caller closes it.
 */
export function openOwnFile(file: string, maxBytes: number): { fd: number; size: number; mtimeMs: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0 || st.size > maxBytes) {
      closeSync(fd);
      return undefined;
    }
    return { fd, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    if (fd !== undefined) closeSync(fd);
    return undefined;
  }
}

/**
 * Whether the open file `fd` holds exactly the bytes whose SHA-256 is `sha256` (hex) and size `bytes`.
 * Read through the descriptor that will be loaded, so the bytes hashed are the file's, whatever its name
 * now points to: a same-size file in the cache (another build's, a corrupted or planted one) is not code
 * we shipped.
 */
export function holdsExactly(fd: number, expected: { sha256: string; bytes: number }): boolean {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(1024 * 1024);
  let total = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, total);
    if (n === 0) break;
    total += n;
    if (total > expected.bytes) return false;
    hash.update(buf.subarray(0, n));
  }
  return total === expected.bytes && hash.digest('hex') === expected.sha256;
}

/**
 * Two installs (two versions, a checkout and a global install) share the directory, each with its own
 * bundle's cache: a cache is dropped only once no start has used it for this long, so that installs used in
 * turn do not delete each other's and compile at every start.
 */
export const UNUSED_CACHE_MS = 14 * 24 * 60 * 60 * 1000;
/** A temporary file this old is a killed write's. */
const LEFTOVER_MS = 60 * 60 * 1000;
/** How often a start that uses a cache marks it used (its mtime): not a write at every start. */
const MARK_EVERY_MS = 24 * 60 * 60 * 1000;

/** Marks an open cache file as used now, at most once a day. Best effort. */
export function markUsed(own: { fd: number; mtimeMs: number }, now = Date.now()): void {
  if (now - own.mtimeMs < MARK_EVERY_MS) return;
  try {
    futimesSync(own.fd, now / 1000, now / 1000);
  } catch {
    // a cache that cannot be marked is only dropped sooner
  }
}

/** The two kinds of file the directory holds: the bundle's code caches and the executable's addons. */
export const CACHE_KINDS = {
  code: { prefix: 'bundle-', suffix: '.v8cache' },
  addon: { prefix: 'better_sqlite3-', suffix: '.node' },
} as const;

/** Removes the files of a kind other than `keep` unused for UNUSED_CACHE_MS, and killed writes' temporary files. */
export function pruneCaches(
  dir: string,
  keep: string,
  kind: (typeof CACHE_KINDS)[keyof typeof CACHE_KINDS],
  now = Date.now(),
): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const leftover = name.endsWith('.tmp');
    if (!name.startsWith(kind.prefix) || path === keep || !(leftover || name.endsWith(kind.suffix))) continue;
    try {
      const st = lstatSync(path);
      if (st.isFile() && now - st.mtimeMs > (leftover ? LEFTOVER_MS : UNUSED_CACHE_MS)) unlinkSync(path);
    } catch {
      // gone already
    }
  }
}
