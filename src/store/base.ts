import type { Db } from '../db/database.js';
import { projectInfo } from './metadata.js';
import { integrityCheck, recordAbort, recordCall, sqliteVersion } from './own/record.js';
import { ensureOwnTables, ownSchemaVersion } from './own/schema.js';
import { claimsStore } from './own/claims.js';
import type { Generation } from './records.js';
import type { OwnStore, ProjectStore, RalphStore, WatchStore } from './store.js';

/** What every generation's store shares: the connection, transactions, and our own tables. */
export function baseStore(
  db: Db,
  generation: Generation,
): Pick<RalphStore, 'generation' | 'db' | 'write' | 'close'> &
  OwnStore &
  Pick<ProjectStore, 'projectInfo' | 'integrityCheck' | 'sqliteVersion'> &
  Pick<WatchStore, 'dataVersion'> {
  return {
    generation,
    db,
    write: (fn) => db.write(fn),
    close: () => db.close(),
    ensureOwnTables: () => ensureOwnTables(db, generation),
    ownSchemaVersion: () => ownSchemaVersion(db),
    recordCall: (by, tool, args, outcome, about) => recordCall(db, by, tool, args, outcome, about),
    recordAbort: (by, reason) => recordAbort(db, by, reason),
    ...claimsStore(db),
    projectInfo: () => projectInfo(db),
    integrityCheck: () => integrityCheck(db),
    sqliteVersion: () => sqliteVersion(db),
    dataVersion: () => Number(db.get<{ data_version: number }>('PRAGMA data_version')?.data_version),
  };
}
