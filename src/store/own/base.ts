import type { Db } from '../../db/database.js';
import { projectInfo } from '../metadata.js';
import type { AuditStore, ClaimStore, ProjectStore, RalphStore } from '../store.js';
import { claimsStore } from './claims.js';
import { integrityCheck, recordAbort, recordCall, sqliteVersion } from './record.js';
import type { Generation } from '../records.js';
import { ensureOwnTables, ownSchemaVersion, type MirrorHooks } from './schema.js';

type Shared = Pick<
  RalphStore,
  'generation' | 'db' | 'write' | 'read' | 'close' | 'ensureOwnTables' | 'ownSchemaVersion'
> & {
  audit: AuditStore;
  claims: ClaimStore;
  project: Pick<ProjectStore, 'projectInfo' | 'integrityCheck' | 'sqliteVersion'>;
  dataVersion: () => number;
};

/** What every generation's store shares: the connection, transactions, our own tables, audit and claims. */
export function sharedParts(db: Db, generation: Generation, mirror: MirrorHooks): Shared {
  return {
    generation,
    db,
    write: (fn) => db.write(fn),
    read: (fn) => db.read(fn),
    close: () => db.close(),
    ensureOwnTables: () => ensureOwnTables(db, generation, mirror),
    ownSchemaVersion: () => ownSchemaVersion(db),
    audit: {
      recordCall: (by, tool, args, outcome, about) => recordCall(db, by, tool, args, outcome, about),
      recordAbort: (by, reason) => recordAbort(db, by, reason),
    },
    claims: claimsStore(db),
    project: {
      projectInfo: () => projectInfo(db),
      integrityCheck: () => integrityCheck(db),
      sqliteVersion: () => sqliteVersion(db),
    },
    dataVersion: () => Number(db.get<{ data_version: number }>('PRAGMA data_version')?.data_version),
  };
}
