import { Db } from '../db/database.js';
import { today } from '../domain/rules.js';
import { DEFAULT_DISCIPLINES } from './defaultDisciplines.js';
import { storeFor } from './open.js';
import type { Generation } from './records.js';
import { RALPH_USER_VERSION, ralphDdl } from './schema.js';

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
        for (const d of DEFAULT_DISCIPLINES) store.createDiscipline(d);
      }
    });
    db.raw.pragma(`user_version = ${RALPH_USER_VERSION}`);
    db.raw.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
