import { existsSync, linkSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { StartupError } from './errors.js';
import { checkFileInProject, UnsafeFileError } from './safeOpen.js';
import { createRalphDatabase } from '../store/init.js';
import type { Generation } from '../store/records.js';

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
  // The default database is found by a fixed name inside the project (a cloned repository may carry a
  // link there): it and its journal files must be regular files inside the project. --db names one
  // explicitly, wherever the operator keeps it.
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

export interface InitOptions {
  title?: string | undefined;
  description?: string | undefined;
  /** Ralph's schema generation: normalized (what Ralph opens today, the default) or legacy. */
  schema?: Generation | undefined;
  /** Seed Ralph's default disciplines (default true). */
  disciplines?: boolean | undefined;
}

/**
 * `ralph-mcp init`: Ralph's schema (the normalized generation unless told otherwise), the metadata row,
 * the default disciplines, empty state files. Never overwrites a database.
 */
export function initProject(dir: string, options: InitOptions = {}): Project {
  const p = projectPaths(dir);
  if (existsSync(p.dbPath)) {
    throw new StartupError(`refusing to overwrite the existing database at ${p.dbPath}`);
  }
  mkdirSync(join(p.ralphDir, 'db'), { recursive: true });
  const title = options.title ?? basename(p.root);
  const tmp = `${p.dbPath}.init-${process.pid}`;
  // Build the database under a temporary name and rename it into place, so a crash or a second
  // `init` racing this one never leaves a half-made ralph.db behind.
  writeFileSync(tmp, '');
  try {
    createRalphDatabase(tmp, options.schema ?? 'normalized', {
      title,
      description: options.description ?? null,
      disciplines: options.disciplines ?? true,
    });
  } catch (err) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(tmp + suffix, { force: true });
    throw err;
  }
  renameNoClobber(tmp, p.dbPath);
  for (const f of [p.learningsFile, p.progressFile]) {
    if (!existsSync(f)) writeFileSync(f, '', { flag: 'wx' });
  }
  return p;
}

function renameNoClobber(from: string, to: string): void {
  try {
    linkSync(from, to); // fails with EEXIST instead of replacing a database another init just made
  } catch (err) {
    rmSync(from, { force: true });
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new StartupError(`refusing to overwrite the existing database at ${to}`);
    throw err;
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(from + suffix, { force: true });
  }
}
