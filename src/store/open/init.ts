import { existsSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Db } from '../../db/database.js';
import { StartupError } from '../../domain/errors.js';
import { projectPaths, type Project } from '../../domain/project.js';
import { today } from '../../domain/rules.js';
import { DEFAULT_DISCIPLINES } from '../defaultDisciplines.js';
import { storeFor } from './openStore.js';
import type { Generation } from '../records.js';
import { RALPH_USER_VERSION, ralphDdl } from '../schema.js';

export interface NewDatabase {
  title: string;
  description: string | null;
  /** Seed the default disciplines (as Ralph's project creation does), so tasks can be created at once. */
  disciplines: boolean;
}

/**
 * Writes Ralph's schema of one generation, its metadata row and (optionally) the default disciplines
 * into an empty file, in one transaction, and leaves it checkpointed (no -wal beside it).
 */
export function createRalphDatabase(path: string, generation: Generation, meta: NewDatabase): void {
  const db = Db.open(path);
  try {
    db.write(() => {
      db.raw.exec(ralphDdl(generation));
      db.run(
        'INSERT INTO metadata (id, schema_version, project_title, project_description, project_created) VALUES (1, ?, ?, ?, ?)',
        '1.0',
        meta.title,
        meta.description,
        today(),
      );
      if (meta.disciplines) {
        const store = storeFor(db, {
          generation,
          userVersion: RALPH_USER_VERSION,
          hasToolOverrides: generation === 'legacy',
          drift: [],
        });
        for (const d of DEFAULT_DISCIPLINES) store.disciplines.createDiscipline(d);
      }
    });
    db.raw.pragma(`user_version = ${RALPH_USER_VERSION}`);
    db.raw.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
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
