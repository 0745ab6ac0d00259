import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StartupError } from '../../domain/errors.js';

/**
 * The original database as bytes. Migrate never opens it with SQLite (which may make or remove -wal/-shm
 * files, or roll back a journal): it copies the file to a private snapshot, reads only that, and before the
 * swap checks that the original's bytes still equal the snapshot's.
 */

export const fileHash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

export const walHasData = (dbPath: string): boolean =>
  existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size > 0;

/** A rollback journal that SQLite would replay on the next open: a write under way, or one a crash cut short. */
export function hotJournal(dbPath: string): boolean {
  const path = `${dbPath}-journal`;
  if (!existsSync(path) || statSync(path).size < 8) return false;
  const head = Buffer.alloc(8);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 8, 0);
  } finally {
    closeSync(fd);
  }
  // A journal's header starts with these bytes until it is finished with (PERSIST mode zeroes them).
  return head.equals(Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]));
}

/** Refuses while changes to the original are pending beside it: they are part of the database too. */
export function refusePending(dbPath: string): void {
  if (walHasData(dbPath))
    throw new StartupError(
      `nothing was changed: ${dbPath}-wal holds changes not yet written into ${dbPath}, so Ralph or a ralph-mcp ` +
        'session may still have it open; stop them (closing the last one folds the changes in) and run migrate again',
    );
  if (hotJournal(dbPath))
    throw new StartupError(
      `nothing was changed: ${dbPath}-journal holds a write that is under way or was cut short; stop Ralph and ` +
        'ralph-mcp sessions, open the project once in Ralph (which completes or undoes it) and run migrate again',
    );
}

/** The original copied to `path`, and the copy's hash (what the original must still hash to at the swap). */
export function takeSnapshot(dbPath: string, path: string): string {
  removeFiles(path);
  copyFileSync(dbPath, path);
  return fileHash(path);
}

/** Whether the original is still what the snapshot copied, with nothing pending beside it. */
export const unchangedSince = (dbPath: string, hash: string): boolean =>
  !walHasData(dbPath) && !hotJournal(dbPath) && fileHash(dbPath) === hash;

export const changedMessage = (dbPath: string): string =>
  `${dbPath} changed while it was being migrated (is Ralph or a ralph-mcp session still running?); ` +
  'nothing was changed: stop them and run migrate again';

/** A database file and whatever SQLite keeps beside it. */
export function removeFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/** Whether anything is at `path`, a dangling symbolic link included (existsSync follows links). */
export const taken = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

/** `<base><suffix>`, or `<base>-2<suffix>`, … when a migration in the same second left one. */
export function freeName(base: string, suffix: string): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${base}${suffix}` : `${base}-${n}${suffix}`;
    if (!taken(name)) return name;
  }
}

/** Whether process `pid` is gone (EPERM: it exists, as another user's). */
function deadPid(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes what a migrate killed midway left beside the database (`<db>.migrating-<pid>`, its `.legacy`
 * snapshot and their -wal/-shm/-journal) when that pid is gone; files of a live pid may be a migrate
 * under way, and stay. Returns the names removed.
 */
export function removeStale(dbPath: string): string[] {
  const name = basename(dbPath);
  const prefix = `${name}.migrating-`;
  const removed: string[] = [];
  for (const f of readdirSync(dirname(dbPath)).sort()) {
    if (!f.startsWith(prefix)) continue;
    const m = /^(\d+)(?:\.legacy)?(?:-wal|-shm|-journal)?$/.exec(f.slice(prefix.length));
    if (!m || Number(m[1]) === process.pid || !deadPid(Number(m[1]))) continue;
    rmSync(join(dirname(dbPath), f), { force: true }); // a link is removed, never followed
    removed.push(f);
  }
  return removed;
}
