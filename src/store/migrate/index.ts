import { createHash } from 'node:crypto';
import { existsSync, linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Db, busyTimeoutMs } from '../../db/database.js';
import { connectSqlite, type Connection } from '../../db/sqlite.js';
import { StartupError } from '../../domain/errors.js';
import { legacyStore } from '../legacy/index.js';
import { normalizedStore } from '../normalized/index.js';
import { RALPH_USER_VERSION, generationLabel, inspectSchema, notRalphMessage, ralphDdl } from '../schema.js';
import { planMigration } from './plan.js';
import { compareStores, countRecords, readRules, type Counts } from './verify.js';
import { writePlan } from './write.js';

export type MigrationResult =
  | { migrated: true; backup: string; counts: Counts; notes: string[] }
  /** The database already has Ralph's current schema: nothing was done (a second run is harmless). */
  | { migrated: false; reason: string };

/**
 * Moves a legacy database to the normalized schema Ralph's head opens: the new file is written and checked
 * beside the untouched original, then renamed over it (the original kept as a hard-linked `.bak`), so there
 * is always a whole ralph.db. A value with no home in the new schema, or a change to the original meanwhile,
 * refuses the whole migration; Ralph and ralph-mcp sessions must be stopped first, as they keep the old file open.
 */
export function migrateDatabase(
  dbPath: string,
  stamp = new Date().toISOString().replace(/[-:]|\.\d{3}/g, ''),
): MigrationResult {
  const tmp = `${dbPath}.migrating-${process.pid}`;
  if (walHasData(dbPath)) {
    throw new StartupError(
      `nothing was changed: ${dbPath}-wal holds changes not yet written into ${dbPath}, so Ralph or a ralph-mcp session may still have it open; stop them (closing the last one folds the changes in) and run migrate again`,
    );
  }
  const original = readOriginal(dbPath);
  if ('current' in original) return { migrated: false, reason: original.current };
  const { plan, hash } = original;
  if (plan.problems.length > 0) {
    const shown = plan.problems
      .slice(0, 20)
      .map((p) => `  - ${p}`)
      .join('\n');
    throw new StartupError(
      `nothing was changed: ${plan.problems.length} value(s) have no home in Ralph's normalized schema${plan.problems.length > 20 ? ' (first 20)' : ''}:\n${shown}\nFix them in Ralph (or with SQL) and run migrate again`,
    );
  }

  removeFiles(tmp);
  writeFileSync(tmp, '');
  let counts: Counts;
  try {
    counts = buildAndCheck(dbPath, tmp, plan);
  } catch (err) {
    removeFiles(tmp);
    throw err;
  }
  if (fileHash(dbPath) !== hash || walHasData(dbPath)) {
    removeFiles(tmp);
    throw new StartupError(
      `${dbPath} changed while it was being migrated (is Ralph or a ralph-mcp session still running?); nothing was changed: stop them and run migrate again`,
    );
  }
  const backup = freeName(`${dbPath}.legacy-${stamp}`, '.bak');
  linkSync(dbPath, backup);
  renameSync(tmp, dbPath);
  // An empty -wal and its -shm that a read-only reader left belong to the old file (one with frames was
  // refused up front): never to be read beside the new one.
  if (!walHasData(dbPath)) for (const suffix of ['-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  return { migrated: true, backup, counts, notes: plan.notes };
}

/**
 * A plain connection to the original that leaves the files beside it as they were: Db.open would switch
 * the file to WAL. Where -wal/-shm files exist (empty: checked before), a read-only connection, which
 * neither makes nor removes them; otherwise a read-write one, which removes on close the ones it made.
 */
function openOriginal(dbPath: string): { db: Connection; readonly: boolean } {
  const readonly = existsSync(`${dbPath}-wal`) || existsSync(`${dbPath}-shm`);
  return { db: connectSqlite(dbPath, { fileMustExist: true, readonly, timeout: busyTimeoutMs() }), readonly };
}

/**
 * The whole legacy database, read in one transaction: under the write lock where the connection may
 * take it (no one writes meanwhile), else a read snapshot (a write meanwhile is caught before the swap).
 */
function readOriginal(dbPath: string): { plan: ReturnType<typeof planMigration>; hash: string } | { current: string } {
  const { db: src, readonly } = openOriginal(dbPath);
  let plan: ReturnType<typeof planMigration>;
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
    src.exec(readonly ? 'BEGIN' : 'BEGIN IMMEDIATE');
    try {
      plan = planMigration(src);
    } finally {
      src.exec('ROLLBACK');
    }
  } finally {
    src.close();
  }
  // After the close: a WAL the last connection checkpointed is part of the original too.
  return { plan, hash: fileHash(dbPath) };
}

function buildAndCheck(dbPath: string, tmp: string, plan: ReturnType<typeof planMigration>): Counts {
  const to = Db.open(tmp);
  try {
    to.write(() => to.raw.exec(ralphDdl('normalized')));
    to.raw.pragma(`user_version = ${RALPH_USER_VERSION}`);
    normalizedStore(to).ensureOwnTables();
    to.write(() => writePlan(to, plan));
    const rules = readRules(to);
    const from = new Db(openOriginal(dbPath).db);
    try {
      // Signals of ours whose comment a person deleted: each becomes a signal with no comment before it.
      const commentIds = new Set(plan.comments.map((c) => Number(c.id)));
      const orphans = new Map<number, number>();
      for (const r of plan.own.taskSignals)
        if (r.comment_id === null || !commentIds.has(Number(r.comment_id)))
          orphans.set(Number(r.task_id), (orphans.get(Number(r.task_id)) ?? 0) + 1);
      const diffs = [...rules, ...compareStores(legacyStore(from), normalizedStore(to), orphans)];
      if (diffs.length > 0)
        throw new StartupError(
          `nothing was changed: the migrated database did not check out:\n${diffs.map((d) => `  - ${d}`).join('\n')}`,
        );
      // Every comment carried over, plus one `blocked` signal for each task that had a blocked_by.
      const blockedBy =
        plan.tasks.filter((t) => typeof t.row.blocked_by === 'string' && t.row.blocked_by !== '').length +
        [...orphans.values()].reduce((n, k) => n + k, 0);
      const a = countRecords(legacyStore(from));
      const b = countRecords(normalizedStore(to));
      if (JSON.stringify({ ...a, comments: a.comments + blockedBy }) !== JSON.stringify(b)) {
        throw new StartupError(
          `nothing was changed: counts differ after migration: ${JSON.stringify(a)} (+${blockedBy} blocked_by and comment-less signals) became ${JSON.stringify(b)}`,
        );
      }
      to.raw.pragma('wal_checkpoint(TRUNCATE)');
      return b;
    } finally {
      from.close();
    }
  } finally {
    to.close();
  }
}

/** `<base><suffix>`, or `<base>-2<suffix>`, … when a migration in the same second left one. */
function freeName(base: string, suffix: string): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${base}${suffix}` : `${base}-${n}${suffix}`;
    if (!existsSync(name)) return name;
  }
}

const fileHash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const walHasData = (dbPath: string): boolean => existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size > 0;
function removeFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}
