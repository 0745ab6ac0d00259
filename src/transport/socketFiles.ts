import { closeSync, constants, lstatSync, openSync, readSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { connect } from 'node:net';
import { StartupError } from '../domain/errors.js';

/**
 * The two files `--transport socket` owns: the socket at PATH and `PATH.pid`. Both paths are chosen by
 * whoever launches the server, so neither may ever be taken as licence to delete or overwrite what is there.
 */

/** How long a probe connect to an existing socket may take before the path is called busy, not stale. */
export const SOCKET_PROBE_TIMEOUT_MS = 2000;

const what = (st: Stats): string =>
  st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isDirectory()
      ? 'a directory'
      : st.isFile()
        ? 'a regular file'
        : st.isSocket()
          ? 'a socket'
          : 'a special file';

const lstatOrNull = (path: string): Stats | null => {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StartupError(`cannot inspect ${path}: ${(err as Error).message}`);
  }
};

/**
 * Makes PATH free for our socket. Nothing there: free. A socket nobody accepts on (connect fails with
 * ECONNREFUSED: its server died) is stale and removed. A live socket is reported as 'live' (the caller
 * names the server). Anything else — a regular file, a directory, a symlink, a socket that answers
 * with another error — is refused, and nothing is removed.
 */
export async function claimSocketPath(path: string): Promise<'free' | 'live'> {
  const st = lstatOrNull(path);
  if (st === null) return 'free';
  if (!st.isSocket())
    throw new StartupError(
      `--socket ${path}: ${what(st)} is there, not a socket; refusing to replace it (choose another path)`,
    );
  const probe = await new Promise<'live' | 'refused' | string>((resolveProbe) => {
    const s = connect(path);
    const timer = setTimeout(() => {
      s.destroy();
      resolveProbe('no answer to a connect');
    }, SOCKET_PROBE_TIMEOUT_MS);
    s.once('connect', () => {
      clearTimeout(timer);
      s.destroy();
      resolveProbe('live');
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolveProbe(err.code === 'ECONNREFUSED' ? 'refused' : `${err.code ?? err.message} on connect`);
    });
  });
  if (probe === 'live') return 'live';
  if (probe !== 'refused')
    throw new StartupError(
      `--socket ${path}: a socket is there but its state is unclear (${probe}); refusing to remove it`,
    );
  // Stale: its server is gone. Check again that it is still a socket, just before removing it.
  if (!lstatOrNull(path)?.isSocket())
    throw new StartupError(`--socket ${path} changed while it was being checked; refusing to remove it`);
  unlinkSync(path);
  return 'free';
}

/** Our socket, at shutdown: removed only if a socket is still what is there. */
export function removeOwnSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // gone already (libuv unlinks it when the server closes)
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, just not ours
  }
};

/** The pid a pid file names, read without following a link; null if there is none or it is not a number. */
export function readPidFile(pidFile: string): number | null {
  let fd: number;
  try {
    fd = openSync(pidFile, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(32);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('utf8').trim();
    return /^\d{1,10}$/.test(text) ? Number(text) : null;
  } finally {
    closeSync(fd);
  }
}

export interface PidFile {
  write: (pid: number) => void;
  /** Removes it if it is still the regular file we created (never through a link). */
  remove: () => void;
}

/**
 * Creates PATH.pid exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), owner-only (0600). One already there may be
 * replaced only if it is a regular file naming a pid that is not alive (left by a killed server);
 * anything else — a symlink, a directory, a live pid, unreadable contents — is refused with one line.
 */
export function createPidFile(pidFile: string): PidFile {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const open = () => openSync(pidFile, flags, 0o600);
  let fd: number;
  try {
    fd = open();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new StartupError(`cannot create ${pidFile}: ${(err as Error).message}`);
    const st = lstatOrNull(pidFile);
    if (st !== null) {
      if (!st.isFile())
        throw new StartupError(
          `${pidFile}: ${what(st)} is there, not a pid file; refusing to write through or replace it (remove it yourself if it is stale)`,
        );
      const pid = readPidFile(pidFile);
      if (pid === null)
        throw new StartupError(
          `${pidFile} is there but holds no pid; refusing to replace it (remove it yourself if it is stale)`,
        );
      if (pid !== process.pid && isAlive(pid))
        throw new StartupError(
          `${pidFile} names pid ${pid}, which is running; stop it first, or remove the file if that process is not a ralph-mcp server`,
        );
      unlinkSync(pidFile); // a dead server's
    }
    try {
      fd = open();
    } catch (again) {
      throw new StartupError(`cannot create ${pidFile}: ${(again as Error).message}`);
    }
  }
  const st = lstatSync(pidFile);
  let written = false;
  return {
    write(pid) {
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      written = true;
    },
    remove() {
      if (!written) closeSync(fd);
      written = true;
      try {
        const now = lstatSync(pidFile);
        if (now.isFile() && now.ino === st.ino && now.dev === st.dev) unlinkSync(pidFile);
      } catch {
        // already gone
      }
    },
  };
}
