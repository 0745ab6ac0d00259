import { accessSync, constants, existsSync, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { errnoWords, FS_ERRORS, fileErrorInWords, GIVE_ACCESS } from '../domain/fileErrors.js';
import type { Project } from '../domain/project.js';
import { checkFileInProject, UnsafeFileError, type UnsafeReason } from '../domain/safeOpen.js';

/**
 * doctor's checks of the files a project keeps under `.ralph/`: the folder itself, where the database
 * should be, and the state files. Each problem is thrown as an Error whose message is the doctor line:
 * what is wrong, for which path, and the next step; an errno code only ever follows its words, in
 * parentheses (domain/fileErrors.ts).
 */

/** The file that stands where a folder of `path` should be (what an ENOTDIR is about), if one does. */
function fileInTheWay(path: string): string | undefined {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    try {
      const st = lstatSync(at, { throwIfNoEntry: false });
      if (st && !st.isDirectory() && !st.isSymbolicLink()) return at;
    } catch {
      // a part above is the file: keep going up
    }
  }
  return undefined;
}

/** The first folder on the way to `path` this user may not enter (what an EACCES on a look is about). */
function closedFolder(path: string): string | undefined {
  const folders: string[] = [];
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) folders.unshift(at);
  return folders.find((at) => {
    try {
      accessSync(at, constants.X_OK);
      return false;
    } catch (err) {
      return (err as { code?: unknown }).code === 'EACCES';
    }
  });
}

/**
 * A failed look at `path` in words, the next step included; a file standing in a folder's place, or a
 * folder this user may not enter, is named.
 */
export function pathProblem(err: unknown, path: string, verb: string, next?: string): string {
  const code = (err as { code?: unknown }).code;
  const inTheWay = code === 'ENOTDIR' ? fileInTheWay(path) : undefined;
  const closed = code === 'EACCES' ? closedFolder(path) : undefined;
  const where = inTheWay
    ? `${inTheWay} is a file, not a folder: move it away so the folder can be there`
    : closed
      ? `this user may not enter ${closed}: ${GIVE_ACCESS}`
      : next;
  return (
    fileErrorInWords(err, { path, verb, ...(where ? { next: where } : {}) }) ??
    `ralph-mcp cannot ${verb} ${path}: ${(err as Error).message}`
  );
}

/** What is at `path` (following links with `follow`), or undefined when nothing is; other failures in words. */
function look(path: string, follow = false): Stats | undefined {
  try {
    return (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false });
  } catch (err) {
    throw new Error(pathProblem(err, path, 'read'));
  }
}

const kindOf = (st: Stats) =>
  st.isDirectory() ? 'a directory' : st.isFile() ? 'a file' : st.isFIFO() ? 'a FIFO' : 'a special file';

const inside = (root: string, p: string): boolean => {
  const r = relative(root, p);
  return r === '' || !(r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r));
};

/** The project folder, and its `.ralph/` a folder inside it (a link to one elsewhere is refused, as serving does). */
export function projectCheck(p: Project): string {
  const folder = `--project names the project's folder (the one holding .ralph/)`;
  const root = look(p.root, true);
  if (!root) throw new Error(`${p.root} does not exist: ${folder}`);
  if (!root.isDirectory()) throw new Error(`${p.root} is ${kindOf(root)}, not a directory: ${folder}`);
  const ralph = look(p.ralphDir);
  if (!ralph) throw new Error(`${p.root} has no .ralph/ folder (ralph-mcp init creates one)`);
  let target = ralph;
  if (ralph.isSymbolicLink()) {
    let real: string;
    try {
      real = realpathSync(p.ralphDir);
    } catch (err) {
      throw new Error(pathProblem(err, p.ralphDir, 'follow'));
    }
    if (!inside(realpathSync(p.root), real))
      throw new Error(
        `${p.ralphDir} is a symbolic link to ${real}, outside the project: ralph-mcp refuses the database and ` +
          'state files behind it; replace the link with the folder itself',
      );
    target = statSync(real);
  }
  if (!target.isDirectory())
    throw new Error(
      `${p.ralphDir} is ${kindOf(target)}, not a folder: Ralph keeps the project's state in the .ralph/ folder; ` +
        `move it away, then \`ralph-mcp init --project ${p.root}\` creates the folder`,
    );
  try {
    accessSync(p.ralphDir, constants.R_OK | constants.X_OK);
  } catch (err) {
    throw new Error(pathProblem(err, p.ralphDir, 'read'));
  }
  return p.root;
}

/** The next step beside a refusal of safeOpen, where its own words do not already give one. */
const UNSAFE_NEXT: Partial<Record<UnsafeReason, string>> = {
  outside_project: 'replace the link with the folder itself',
};

/**
 * Where the database should be: its folder a folder, the file a file, and (unless --db named it) inside the
 * project and not a link, as a launch requires. Throws what is wrong in words; passes when it may be opened.
 */
export function databaseLocation(p: Project, named: boolean): void {
  const folder = dirname(p.dbPath);
  const create = named ? 'check --db' : 'ralph-mcp init creates it';
  const dir = look(folder, true);
  if (!dir) throw new Error(`not found at ${p.dbPath} (${create})`);
  if (!dir.isDirectory())
    throw new Error(
      `${folder} is ${kindOf(dir)}, not a folder, so no database can be at ${p.dbPath}; ` +
        (named ? 'check --db' : 'move it away (then ralph-mcp init creates the folder and the database)'),
    );
  if (!named) {
    try {
      for (const suffix of ['', '-wal', '-shm', '-journal']) checkFileInProject(p.root, p.dbPath + suffix);
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw new Error(pathProblem(err, p.dbPath, 'read'));
      const next =
        err.reason === 'not_regular'
          ? 'move it away (then ralph-mcp init creates the database)'
          : UNSAFE_NEXT[err.reason];
      throw new Error(`${err.message}; ${next ? `${next}, ` : ''}or name the database with --db PATH`);
    }
  }
  const db = look(p.dbPath, true);
  if (!db) throw new Error(`not found at ${p.dbPath} (${create})`);
  if (!db.isFile())
    throw new Error(
      `${p.dbPath} is ${kindOf(db)}, not a database file; ` +
        (named ? 'check --db' : 'move it away (then ralph-mcp init creates the database)'),
    );
}

/** Who fails, and how, while a state file cannot be read or written. */
const STATE_FILE_USERS = { read: 'reads of it', write: 'appends to it' } as const;

/**
 * A state file (`.ralph/learnings.txt`, `.ralph/progress.txt`): what the tools would refuse (a link, a hard
 * link, a FIFO, a folder leading out of the project) fails here too; present, it must be readable and
 * writable; absent, its folder must let the first append create it.
 */
export function stateFileCheck(p: Project, file: string): string {
  try {
    checkFileInProject(p.root, file, { oneName: true });
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw new Error(pathProblem(err, file, 'read'));
    const next =
      err.reason === 'not_regular' ? 'move it away: the first append creates the file' : UNSAFE_NEXT[err.reason];
    throw new Error(`${err.message}${next ? `; ${next}` : ''}`);
  }
  if (look(file)) {
    for (const verb of ['read', 'write'] as const) {
      try {
        accessSync(file, verb === 'read' ? constants.R_OK : constants.W_OK);
      } catch (err) {
        throw new Error(notPermitted(err, file, verb));
      }
    }
    return 'readable and writable';
  }
  try {
    accessSync(p.ralphDir, constants.W_OK);
  } catch (err) {
    throw new Error(`absent, and the first append cannot create it: ${pathProblem(err, p.ralphDir, 'write')}`);
  }
  return 'absent; will be created on first append';
}

/** A state file that is there but may not be read or written, and what agents see until that is fixed. */
export function notPermitted(err: unknown, file: string, verb: 'read' | 'write'): string {
  return `${pathProblem(err, file, verb)}; until then agents' ${STATE_FILE_USERS[verb]} fail with io_error`;
}

/**
 * The files a writing session needs to write (the database, its folder for the journal, -wal and -shm if
 * present), each that it may not named with why in words; 'yes' when it may write them all.
 */
export function writableForSessions(dbPath: string): string {
  const needed = [dbPath, dirname(dbPath), ...['-wal', '-shm'].map((x) => dbPath + x).filter((f) => existsSync(f))];
  const denied: { path: string; code: string; message: unknown }[] = [];
  for (const path of needed) {
    try {
      accessSync(path, constants.W_OK);
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      denied.push({ path, code: typeof e.code === 'string' ? e.code : 'EACCES', message: e.message });
    }
  }
  if (denied.length === 0) return 'yes';
  const files = denied.map((d) => `${d.path} (${errnoWords(d.code, d.message)}, ${d.code})`).join(', ');
  const nexts = [...new Set(denied.map((d) => FS_ERRORS[d.code]?.next).filter((x): x is string => !!x))];
  const next = nexts.length ? nexts.join('; ') : 'make them writable for the user the sessions run as';
  throw new Error(
    `no: this user cannot write ${files}; sessions can read but answer every write with io_error. ${capital(next)}`,
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
