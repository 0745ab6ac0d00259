import { Db } from '../db/database.js';
import { today } from '../domain/rules.js';
import type { Generation } from './records.js';
import { RALPH_USER_VERSION, ralphDdl } from './schema.js';

export interface NewDatabase {
  title: string;
  description: string | null;
}

/**
 * Writes Ralph's schema of one generation and its metadata row into an empty file, as Ralph's own
 * project creation does, and leaves it checkpointed (no -wal beside it).
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
    });
    db.raw.pragma(`user_version = ${RALPH_USER_VERSION}`);
    db.raw.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
