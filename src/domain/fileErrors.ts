/**
 * What the file system says (an errno code) in words a person acts on, with the next step: one table for
 * the launch's one-line refusal (cli/launch.ts) and doctor's checks (cli/doctorFiles.ts). The code itself
 * only ever follows the words, in parentheses.
 */
export interface FsErrorWords {
  /** What is wrong, after "cannot <verb> <path>:". */
  words: string;
  /** What to do about it, when that does not depend on which file it is. */
  next?: string;
}

/** The next step of a permission problem, whichever file it is about. */
export const GIVE_ACCESS =
  'give the user running ralph-mcp access (chmod, chown), or run ralph-mcp as a user who has it';

export const FS_ERRORS: Record<string, FsErrorWords> = {
  EACCES: { words: 'permission denied', next: GIVE_ACCESS },
  EPERM: {
    words: 'operation not permitted',
    next: `it may be immutable (lsattr shows an i; chattr -i clears it) or another user's: ${GIVE_ACCESS}`,
  },
  EROFS: {
    words: 'the file system is read-only',
    next: 'remount it read-write, or move the project to a writable file system',
  },
  ENOTDIR: {
    words: 'a part of the path is a file, not a directory',
    next: 'move that file away so the folder can be there',
  },
  EISDIR: { words: 'it is a directory', next: 'move the directory away so the file can be there' },
  ENOENT: { words: 'no such file or directory' },
  EEXIST: { words: 'it already exists' },
  ELOOP: {
    words: 'too many symbolic links (a link that leads back to itself)',
    next: 'replace the link with the file or folder itself',
  },
  ENAMETOOLONG: { words: 'the path is too long', next: 'move the project to a shorter path' },
  ENOSPC: { words: 'no space left on the device', next: 'free some space on it' },
  EDQUOT: { words: "the user's disk quota is used up", next: 'free some space, or raise the quota' },
  EIO: {
    words: 'the device reported an input/output error',
    next: 'check the disk (dmesg) and copy the project somewhere sound',
  },
  EMFILE: { words: 'this process has too many files open', next: 'raise the limit (ulimit -n)' },
  ENFILE: { words: 'the system has too many files open', next: 'close some programs, or raise fs.file-max' },
};

/** The verb a failed system call stands for, in "cannot <verb> <path>". */
const VERBS: Record<string, string> = {
  access: 'use',
  mkdir: 'create',
  open: 'open',
  rename: 'move',
  lstat: 'read',
  stat: 'read',
  realpath: 'follow',
  readlink: 'follow',
  scandir: 'list',
  unlink: 'remove',
};

/** The verb of "cannot <verb> <path>" for a failed system call. */
export const verbOf = (syscall: unknown): string => (typeof syscall === 'string' ? (VERBS[syscall] ?? 'use') : 'use');

interface Errno {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  message?: unknown;
}

/** An errno's words: the table's, else what the system said ("EXYZ: what it says, syscall 'path'"). */
export function errnoWords(code: string, message?: unknown): string {
  const known = FS_ERRORS[code]?.words;
  if (known) return known;
  const said = typeof message === 'string' ? /^[A-Z]+: ([^,]+)/.exec(message)?.[1] : undefined;
  return said ?? 'the system refused';
}

/**
 * A file-system failure as one sentence: what ralph-mcp cannot do, to which path, why in words (the code in
 * parentheses), and the next step (`next` when the caller knows a better one for its file). Undefined for an
 * error that carries no errno code.
 */
export function fileErrorInWords(
  err: unknown,
  at: { path?: string; verb?: string; next?: string } = {},
): string | undefined {
  const e = err as Errno;
  if (typeof e?.code !== 'string' || !/^E[A-Z]+$/.test(e.code)) return undefined;
  const path = at.path ?? (typeof e.path === 'string' ? e.path : 'a file');
  const verb = at.verb ?? verbOf(e.syscall);
  const next = at.next ?? FS_ERRORS[e.code]?.next;
  return `ralph-mcp cannot ${verb} ${path}: ${errnoWords(e.code, e.message)} (${e.code})${next ? `; ${next}` : ''}`;
}
