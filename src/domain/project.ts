import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StartupError } from './errors.js';
import { checkFileInProject, UnsafeFileError } from './safeOpen.js';

/** Where a Ralph project keeps its state: everything lives under `<project>/.ralph/`. */
export interface Project {
  root: string;
  ralphDir: string;
  dbPath: string;
  learningsFile: string;
  progressFile: string;
}

export function projectPaths(dir: string, dbOverride?: string): Project {
  const root = resolve(dir);
  const ralphDir = join(root, '.ralph');
  return {
    root,
    ralphDir,
    dbPath: dbOverride ? resolve(dbOverride) : join(ralphDir, 'db', 'ralph.db'),
    learningsFile: join(ralphDir, 'learnings.txt'),
    progressFile: join(ralphDir, 'progress.txt'),
  };
}

/** Fails closed unless `dir` is a Ralph project whose database exists. */
export function locateProject(dir: string, dbOverride?: string): Project {
  const p = projectPaths(dir, dbOverride);
  if (!existsSync(p.root)) throw new StartupError(`project directory ${p.root} does not exist`);
  if (!statSync(p.root).isDirectory())
    throw new StartupError(
      `${p.root} is a file, not a directory: --project names the project's folder (the one holding .ralph/)`,
    );
  if (!existsSync(p.ralphDir)) {
    throw new StartupError(
      `${p.root} is not a Ralph project (no .ralph/ folder); create one with: ralph-mcp init --project ${p.root}`,
    );
  }
  if (!existsSync(p.dbPath)) {
    throw new StartupError(`database not found at ${p.dbPath}; create it with: ralph-mcp init --project ${p.root}`);
  }
  // A fixed name inside the project, where a cloned repository may carry a link: the database and its
  // journals must be regular files there. --db is the operator's explicit choice, wherever it is.
  if (!dbOverride) {
    try {
      for (const suffix of ['', '-wal', '-shm', '-journal']) checkFileInProject(p.root, p.dbPath + suffix);
    } catch (err) {
      if (err instanceof UnsafeFileError) throw new StartupError(`${err.message}; or name the database with --db PATH`);
      throw err;
    }
  }
  return p;
}
