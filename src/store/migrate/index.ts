import { linkSync, renameSync, rmSync } from 'node:fs';
import { Db } from '../../db/database.js';
import { connectSqlite, sqliteCode } from '../../db/sqlite.js';
import { StartupError } from '../../domain/errors.js';
import { RALPH_USER_VERSION, generationLabel, inspectSchema, notRalphMessage } from '../schema.js';
import { buildAndCheck, type Run } from './build.js';
import type { CompletedFill, CompletedFrom } from './completed.js';
import { describeOwn } from './own.js';
import { planMigration, type MigrationPlan } from './plan.js';
import {
  changedMessage,
  freeName,
  refusePending,
  removeFiles,
  removeStale,
  taken,
  takeSnapshot,
  unchangedSince,
  walHasData,
} from './snapshot.js';
import { describeUserObjects } from './userObjects.js';
import type { Counts } from './verify.js';

export type { CompletedFrom } from './completed.js';

export interface MigrateOptions {
  /** Where a done task without a completed date takes one from (refused without it). */
  completedFrom?: CompletedFrom;
  /** The backup's time stamp (default: now, to the second). */
  stamp?: string;
}

export type MigrationResult =
  | {
      migrated: true;
      backup: string;
      counts: Counts;
      /** What else came along: our own records, a person's objects. */
      carried: string[];
      completed: CompletedFill | null;
      /** The ralph_mcp_audit row recording the --completed-from choice (null: none was given). */
      auditId: number | null;
      notes: string[];
      /** Files a migrate killed midway had left beside the database, removed now. */
      cleaned: string[];
    }
  /** The database already has Ralph's current schema: nothing was done (a second run is harmless). */
  | { migrated: false; reason: string; cleaned: string[] };

/**
 * Moves a legacy database to the normalized schema Ralph's head opens: the new file is written and checked
 * beside the untouched original (read only through a private snapshot of its bytes), then renamed over it,
 * the original kept as a hard-linked `.bak`, so there is always a whole ralph.db. A value with no home in
 * the new schema, or a change to the original meanwhile, refuses the whole migration; Ralph and ralph-mcp
 * sessions must be stopped first, as they keep the old file open.
 */
export function migrateDatabase(dbPath: string, options: MigrateOptions = {}): MigrationResult {
  const stamp = options.stamp ?? new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const tmp = `${dbPath}.migrating-${process.pid}`;
  const snapshot = `${tmp}.legacy`;
  // Leftovers of a migrate that was killed are of no use to anyone: removed first, and said so even when
  // this run is refused.
  const cleaned = removeStale(dbPath);
  try {
    return migrateChecked(dbPath, tmp, snapshot, stamp, options.completedFrom, cleaned);
  } catch (err) {
    if (cleaned.length === 0 || !(err instanceof StartupError)) throw err;
    throw new StartupError(`${err.message}\n${cleanedLine(cleaned)}`, err.exitCode);
  }
}

/** What removeStale removed, in words. */
export const cleanedLine = (cleaned: readonly string[]): string =>
  `removed ${cleaned.length} file(s) an interrupted migrate had left: ${cleaned.join(', ')}`;

function migrateChecked(
  dbPath: string,
  tmp: string,
  snapshot: string,
  stamp: string,
  completedFrom: CompletedFrom | undefined,
  cleaned: string[],
): MigrationResult {
  refusePending(dbPath);
  try {
    const hash = takeSnapshot(dbPath, snapshot);
    const plan = readSnapshot(dbPath, snapshot, completedFrom);
    if ('current' in plan) return { migrated: false, reason: plan.current, cleaned };
    refuseProblems(plan);
    const run: Run = { stamp, backup: freeName(`${dbPath}.legacy-${stamp}`, '.bak') };
    let built: ReturnType<typeof buildAndCheck>;
    try {
      built = buildAndCheck(tmp, snapshot, plan, run);
    } catch (err) {
      // A snapshot copied while someone wrote may not even read: say what happened, not what it broke.
      if (!unchangedSince(dbPath, hash)) throw new StartupError(changedMessage(dbPath));
      // SQLite refusing a statement (a person's table needing a collation this SQLite lacks, a full disk):
      // the original is untouched, and the person can act on SQLite's own words.
      if (sqliteCode(err) !== undefined)
        throw new StartupError(`nothing was changed: the new database could not be written: ${(err as Error).message}`);
      throw err;
    } finally {
      removeFiles(snapshot);
    }
    if (!unchangedSince(dbPath, hash)) throw new StartupError(changedMessage(dbPath));
    swap(dbPath, tmp, run.backup);
    return {
      migrated: true,
      backup: run.backup,
      counts: built.counts,
      carried: [describeOwn(plan.ownTables), describeUserObjects(plan.user)],
      completed: plan.completed,
      auditId: built.auditId,
      notes: plan.notes,
      cleaned,
    };
  } finally {
    removeFiles(tmp);
    removeFiles(snapshot);
  }
}

/**
 * The snapshot read whole in one transaction (nothing else has it open) and planned; or, for a file that
 * already has Ralph's current schema, why there is nothing to do.
 */
function readSnapshot(
  dbPath: string,
  snapshot: string,
  completedFrom: CompletedFrom | undefined,
): MigrationPlan | { current: string } {
  const src = connectSqlite(snapshot, { fileMustExist: true });
  try {
    const info = inspectSchema(new Db(src));
    if (info.generation === null) throw new StartupError(notRalphMessage(dbPath, info));
    if (info.generation === 'normalized')
      return { current: `${dbPath} already has Ralph's ${generationLabel('normalized')}; nothing to migrate` };
    if (info.userVersion !== RALPH_USER_VERSION)
      throw new StartupError(
        `${dbPath} has schema version ${info.userVersion}; migrate understands version ${RALPH_USER_VERSION}`,
      );
    if (info.drift.length > 0)
      throw new StartupError(`${dbPath} does not have the columns of Ralph's legacy schema: ${info.drift.join('; ')}`);
    src.exec('BEGIN');
    try {
      return planMigration(src, completedFrom);
    } finally {
      src.exec('ROLLBACK');
    }
  } finally {
    src.close();
  }
}

/** Refuses the migration, naming every value (or object) without a home, and what to do instead (plan.ts). */
function refuseProblems(plan: MigrationPlan): void {
  const { problems, hints } = plan;
  if (problems.length === 0) return;
  const shown = problems
    .slice(0, 20)
    .map((p) => `  - ${p}`)
    .join('\n');
  const more = problems.length > 20 ? ' (first 20)' : '';
  const next = hints.join('\n');
  throw new StartupError(
    `nothing was changed: ${problems.length} value(s) have no home in Ralph's normalized schema${more}:\n` +
      `${shown}\n${next}`,
  );
}

/** The checked file in place of the original, which stays, byte for byte, as the backup (a hard link). */
function swap(dbPath: string, tmp: string, backup: string): void {
  const appeared = new StartupError(`nothing was changed: ${backup} appeared meanwhile; run migrate again`);
  // taken, not existsSync: a dangling symbolic link at the name is there too (and linkSync refuses it).
  if (taken(backup)) throw appeared;
  try {
    linkSync(dbPath, backup);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw appeared;
    throw err;
  }
  renameSync(tmp, dbPath);
  // An empty -wal and its -shm that a read-only reader left belong to the old file (one with frames was
  // refused up front): never to be read beside the new one.
  if (!walHasData(dbPath)) for (const suffix of ['-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
}
