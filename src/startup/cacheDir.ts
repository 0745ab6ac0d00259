import { constants, fstatSync, lstatSync, mkdirSync, openSync, closeSync } from 'node:fs';
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
export function openOwnFile(file: string, maxBytes: number): { fd: number; size: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0 || st.size > maxBytes) {
      closeSync(fd);
      return undefined;
    }
    return { fd, size: st.size };
  } catch {
    if (fd !== undefined) closeSync(fd);
    return undefined;
  }
}
