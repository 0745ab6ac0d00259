import { writeFileSync } from 'node:fs';
import { Db } from '../../db/database.js';
import { connectSqlite } from '../../db/sqlite.js';
import { StartupError } from '../../domain/errors.js';
import { legacyStore } from '../legacy/index.js';
import { normalizedStore } from '../normalized/index.js';
import { RALPH_USER_VERSION, ralphDdl } from '../schema.js';
import { storedDates } from './dates.js';
import { copyOwn, verifyOwn } from './own.js';
import type { MigrationPlan } from './plan.js';
import { recordMigration } from './record.js';
import { stageFilled } from './tasks.js';
import { copyUserObjects, verifyUserObjects } from './userObjects.js';
import { compareStores, readRules, type Counts } from './verify.js';
import { writeOwnRows, writeRalphRows } from './write.js';

/**
 * The new file, written beside the original from its snapshot in one transaction, then checked: every
 * stored value, our carried tables and a person's objects against the snapshot (attached as `legacy`),
 * Ralph's read rules, and every record read back through both stores. Any difference throws, naming it.
 */

export interface Built {
  counts: Counts;
  /** The migration's ralph_mcp_audit row (record.ts), when --completed-from was given. */
  auditId: number | null;
}

const fail = (what: string, lines: string[]): never => {
  throw new StartupError(`nothing was changed: ${what}:\n${lines.map((d) => `  - ${d}`).join('\n')}`);
};

/** This run: its time stamp and the name the original will be kept under (both recorded). */
export interface Run {
  stamp: string;
  backup: string;
}

export function buildAndCheck(tmp: string, snapshot: string, plan: MigrationPlan, run: Run): Built {
  writeFileSync(tmp, '');
  const to = Db.open(tmp);
  try {
    // Checked whole afterwards (foreign_key_check): a person's tables may name each other in any order,
    // or hold rows their own keys never allowed, and arrive as they were.
    to.raw.pragma('foreign_keys = OFF');
    to.raw.prepare('ATTACH DATABASE ? AS legacy').run(snapshot);
    stageFilled(to, plan.completed?.values ?? new Map<number, string>());
    const auditId = to.write(() => writeAll(to, plan, run));
    const stored = [...storedDates(to), ...verifyOwn(to, plan.ownTables, auditId), ...verifyUserObjects(to, plan.user)];
    if (stored.length > 0) fail('the migrated database did not keep every value as it was', stored);
    to.raw.exec('DETACH DATABASE legacy');
    const counts = checkRecords(to, snapshot, plan);
    to.raw.pragma('wal_checkpoint(TRUNCATE)');
    return { counts, auditId };
  } finally {
    to.close();
  }
}

/**
 * Everything, inside the one transaction: Ralph's schema and rows, then our tables (their triggers and
 * mirrors built once, whole) with the rows that belong to Ralph's and the carried ones, the record of a
 * --completed-from choice, and last a person's objects. Returns that record's id.
 */
function writeAll(to: Db, plan: MigrationPlan, run: Run): number | null {
  to.raw.exec(ralphDdl('normalized'));
  to.raw.pragma(`user_version = ${RALPH_USER_VERSION}`);
  const own = writeRalphRows(to, plan);
  normalizedStore(to).ensureOwnTables();
  writeOwnRows(to, own);
  copyOwn(to, plan.ownTables);
  const userObjects = plan.user.objects.map((o) => `${o.type} ${o.name}`);
  const id = plan.completed ? recordMigration(to, { ...run, completed: plan.completed, userObjects }) : null;
  copyUserObjects(to, plan.user);
  return id;
}

/** Ralph's read rules on the new file, and every record read back alike through both stores. */
function checkRecords(to: Db, snapshot: string, plan: MigrationPlan): Counts {
  const from = new Db(connectSqlite(snapshot, { fileMustExist: true }));
  try {
    // Signals of ours whose comment a person deleted: each becomes a signal with no comment before it.
    const commentIds = new Set(plan.comments.map((c) => Number(c.id)));
    const orphans = new Map<number, number>();
    for (const r of plan.own.taskSignals)
      if (r.comment_id === null || !commentIds.has(Number(r.comment_id)))
        orphans.set(Number(r.task_id), (orphans.get(Number(r.task_id)) ?? 0) + 1);
    const userTables = new Set(plan.user.tables.map((t) => t.name));
    const filled = plan.completed?.values ?? new Map<number, string>();
    const cmp = compareStores(legacyStore(from), normalizedStore(to), { extraSignals: orphans, filled });
    const diffs = [...readRules(to, userTables), ...cmp.diffs];
    if (diffs.length > 0) fail('the migrated database did not check out', diffs);
    // Every comment carried over, plus one `blocked` signal for each task that had a blocked_by.
    const added =
      plan.tasks.filter((t) => typeof t.row.blocked_by === 'string' && t.row.blocked_by !== '').length +
      [...orphans.values()].reduce((n, k) => n + k, 0);
    const a = cmp.from;
    const b = cmp.to;
    if (JSON.stringify({ ...a, comments: a.comments + added }) !== JSON.stringify(b))
      throw new StartupError(
        `nothing was changed: counts differ after migration: ${JSON.stringify(a)} ` +
          `(+${added} blocked_by and comment-less signals) became ${JSON.stringify(b)}`,
      );
    return b;
  } finally {
    from.close();
  }
}
