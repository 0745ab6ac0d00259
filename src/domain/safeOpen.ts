import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/**
 * Opening the files the server finds by a fixed name inside a project (`.ralph/learnings.txt`,
 * `.ralph/progress.txt`, `.ralph/mcp/recipes.json`, `.ralph/mcp/context.json`) without being led out of it: a
 * project is untrusted input, and a cloned repository can carry `.ralph/progress.txt -> ~/.bashrc`, a hard
 * link to a file elsewhere, or a FIFO. Refusals are UnsafeFileError, which callers turn into their own kind
 * of error. The rules, in words: docs/files-and-links.md.
 */

export type UnsafeReason = 'symlink' | 'hard_link' | 'not_regular' | 'outside_project' | 'too_large';

export class UnsafeFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: UnsafeReason,
    /** What is wrong, as a predicate of the file: "is a symbolic link; …". */
    readonly problem: string,
  ) {
    super(`${file} ${problem}`);
    this.name = 'UnsafeFileError';
  }
}

const inside = (root: string, p: string): boolean => {
  const r = relative(root, p);
  return r !== '' && !(r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r));
};

/** realpath of `p`, or undefined if it does not exist. Other errors propagate. */
function realOrAbsent(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw err;
  }
}

/**
 * Refuses `file` unless its folder, followed through any links, lands inside `root`. A missing folder is
 * no refusal (the open then fails with ENOENT, which the caller handles).
 */
function checkFolder(root: string, file: string): void {
  const realRoot = realpathSync(root);
  const folder = realOrAbsent(dirname(file));
  if (folder !== undefined && folder !== realRoot && !inside(realRoot, folder)) {
    throw new UnsafeFileError(
      file,
      'outside_project',
      `lies in a folder that resolves to ${folder}, outside the project ${realRoot} (through a symbolic link)`,
    );
  }
}

/** What a file that is not a regular one is, in words. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'a special file';
}

/** After the open: what the descriptor really is (fstat of the descriptor, not the path: no race with a swap). */
function checkOpened(root: string, file: string, fd: number): number {
  const st = fstatSync(fd);
  if (!st.isFile())
    throw new UnsafeFileError(
      file,
      'not_regular',
      `is ${kindOf(st)}, not a regular file; refusing to use it (replace it with a plain text file)`,
    );
  // A second name for the same inode may lie anywhere on the file system (a hard link passes every check
  // of a path): appends would land there and reads return it. Refused like a symbolic link.
  if (st.nlink > 1) throw hardLink(file, st.nlink);
  // Where the descriptor really lies closes the window between the folder check and the open (Linux
  // only; elsewhere the folder check stands alone).
  const opened = whereOpened(fd);
  if (opened !== undefined) {
    const realRoot = realpathSync(root);
    if (!inside(realRoot, opened))
      throw new UnsafeFileError(file, 'outside_project', `opened as ${opened}, outside the project ${realRoot}`);
  }
  return st.size;
}

/**
 * For a file another library opens by name (SQLite and its -wal/-shm siblings): its folder must resolve
 * inside the project, and the file, if it exists, must be a regular file and not a link. (There is no
 * descriptor of ours to check afterwards, so this is the whole check.) `oneName`: refuse a hard link too,
 * as the opens above do (the doctor's view of the state files); not for the database, whose migrate
 * keeps the old file as a hard-linked backup.
 */
export function checkFileInProject(root: string, file: string, opts: { oneName?: boolean } = {}): void {
  checkFolder(root, file);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink())
    throw new UnsafeFileError(
      file,
      'symlink',
      'is a symbolic link; refusing to follow it (replace it with the file itself)',
    );
  if (!st.isFile())
    throw new UnsafeFileError(file, 'not_regular', `is ${kindOf(st)}, not a regular file; refusing to use it`);
  if (opts.oneName && st.nlink > 1) throw hardLink(file, st.nlink);
}

/** A file with more than one name: the other may lie outside the project. */
const hardLink = (file: string, nlink: number): UnsafeFileError =>
  new UnsafeFileError(
    file,
    'hard_link',
    `has ${nlink} hard links (another name for the same file, which may lie outside the project); ` +
      'refusing to use it (replace it with a copy of its own)',
  );

export type OpenMode = 'read' | 'append';

/** Tests only: runs between the folder check and the open, where a swap of `.ralph` would race. */
export const raceSeam: { afterFolderCheck?: (file: string) => void } = {};

/**
 * Opens `file` (an absolute path under `root`) as described above. 'read': read-only, undefined when the
 * file does not exist. 'append': read-write, O_APPEND, created (0644) if missing. The caller closes the fd.
 */
export function openInProject(root: string, file: string, mode: OpenMode): { fd: number; size: number } | undefined {
  checkFolder(root, file);
  raceSeam.afterFolderCheck?.(file);
  // O_NOFOLLOW: a link in the file's place is refused, even one inside the project (where it points is a
  // race). O_NONBLOCK: a FIFO with no writer must not block the server.
  const flags =
    (mode === 'read' ? constants.O_RDONLY : constants.O_RDWR | constants.O_APPEND | constants.O_CREAT) |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = openThroughFolder(root, file, flags);
  } catch (err) {
    if (err instanceof UnsafeFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && mode === 'read') return undefined;
    // O_NOFOLLOW on a link (also a dangling one, which O_CREAT would otherwise create outside): ELOOP.
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new UnsafeFileError(
        file,
        'symlink',
        'is a symbolic link; refusing to follow it (replace it with a plain text file)',
      );
    if (code === 'EISDIR')
      throw new UnsafeFileError(
        file,
        'not_regular',
        'is a directory, not a regular file; refusing to use it (replace it with a plain text file)',
      );
    if (code === 'ENXIO')
      throw new UnsafeFileError(
        file,
        'not_regular',
        'is a FIFO or socket, not a regular file; refusing to use it (replace it with a plain text file)',
      );
    throw err;
  }
  try {
    return { fd, size: checkOpened(root, file, fd) };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Where an open descriptor lies (Linux's /proc/self/fd), or undefined where that cannot be told. */
function whereOpened(fd: number): string | undefined {
  try {
    const at = readlinkSync(`/proc/self/fd/${fd}`);
    return at.startsWith('/') && !at.endsWith(' (deleted)') ? at : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens `file` relative to its folder, checked as an open descriptor: Node has no openat(2), but on Linux
 * `/proc/self/fd/<dirfd>/<name>` resolves through the very folder that was checked, so a `.ralph` swapped
 * for a link after the check cannot make O_CREAT create a file outside. Where /proc is missing, the open
 * is by path and a file it created outside the project is removed again (see undoOutsideCreate).
 */
function openThroughFolder(root: string, file: string, flags: number): number {
  const dirFd = openSync(dirname(file), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const folder = whereOpened(dirFd);
    if (folder === undefined) return openByPath(root, file, flags);
    const realRoot = realpathSync(root);
    if (folder !== realRoot && !inside(realRoot, folder))
      throw new UnsafeFileError(
        file,
        'outside_project',
        `lies in a folder opened as ${folder}, outside the project ${realRoot} (swapped for a symbolic link)`,
      );
    return openSync(`/proc/self/fd/${dirFd}/${basename(file)}`, flags, 0o644);
  } finally {
    closeSync(dirFd);
  }
}

/** Without /proc: create only with O_EXCL, so that a file found to lie outside is known to be ours to remove. */
function openByPath(root: string, file: string, flags: number): number {
  if ((flags & constants.O_CREAT) === 0) return openSync(file, flags);
  try {
    return openSync(file, flags & ~constants.O_CREAT);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const fd = openSync(file, flags | constants.O_EXCL, 0o644);
  try {
    undoOutsideCreate(root, file, fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** Removes the file just created by `fd` if its folder now resolves outside the project, and refuses. */
function undoOutsideCreate(root: string, file: string, fd: number): void {
  const realRoot = realpathSync(root);
  const folder = realOrAbsent(dirname(file));
  if (folder === undefined || folder === realRoot || inside(realRoot, folder)) return;
  const made = fstatSync(fd);
  const there = lstatSync(join(folder, basename(file)), { throwIfNoEntry: false });
  if (there && there.ino === made.ino && there.dev === made.dev) unlinkSync(join(folder, basename(file)));
  throw new UnsafeFileError(
    file,
    'outside_project',
    `lies in a folder that resolves to ${folder}, outside the project ${realRoot}`,
  );
}

/** Reads up to `length` bytes at `position`, looping over short reads; stops early at end of file. */
function readAt(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export interface Tail {
  /** The bytes read, decoded as UTF-8; when cut, starting at a character boundary. */
  text: string;
  /** The file's size when it was opened. */
  fileBytes: number;
  /** Bytes before `text` that were not read (0 when the whole file was read). */
  omittedBytes: number;
}

/** The last `maxBytes` of the file (all of it if it is no larger), or undefined if it does not exist. */
export function readTailInProject(root: string, file: string, maxBytes: number): Tail | undefined {
  const opened = openInProject(root, file, 'read');
  if (!opened) return undefined;
  try {
    const start = Math.max(0, opened.size - maxBytes);
    let buf = readAt(opened.fd, Math.min(opened.size, maxBytes), start);
    let skip = 0;
    // A cut may fall inside a UTF-8 sequence: drop its continuation bytes (at most 3).
    if (start > 0) while (skip < 3 && skip < buf.length && (buf[skip]! & 0xc0) === 0x80) skip++;
    buf = buf.subarray(skip);
    return { text: buf.toString('utf8'), fileBytes: opened.size, omittedBytes: start + skip };
  } finally {
    closeSync(opened.fd);
  }
}

/** The whole file, refused (too_large) when it holds more than `maxBytes`; undefined if it does not exist. */
export function readWholeInProject(root: string, file: string, maxBytes: number): string | undefined {
  const opened = openInProject(root, file, 'read');
  if (!opened) return undefined;
  try {
    if (opened.size > maxBytes)
      throw new UnsafeFileError(file, 'too_large', `is ${opened.size} bytes; at most ${maxBytes} are read`);
    // One byte more than allowed tells a file that grew since fstat from one that did not.
    const buf = readAt(opened.fd, maxBytes + 1, 0);
    if (buf.length > maxBytes)
      throw new UnsafeFileError(file, 'too_large', `is over ${maxBytes} bytes; at most ${maxBytes} are read`);
    return buf.toString('utf8');
  } finally {
    closeSync(opened.fd);
  }
}
