import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { doctor } from '../../src/cli/doctor.js';
import type { Project } from '../../src/domain/project.js';

/** Helpers shared by the tests of Ralph's databases as they are found: fixtures, generations, migrate. */

export const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The database file's hash and the files beside it. */
export const fileState = (p: Project) => ({ hash: sha256(p.dbPath), files: readdirSync(dirname(p.dbPath)).sort() });

/** Changes a database as another Ralph (or a person with sqlite3) would, then closes it cleanly. */
export function alter(p: Project, statements: string): void {
  const db = new Database(p.dbPath);
  db.pragma('foreign_keys = OFF');
  db.exec(statements);
  db.close();
}

/** doctor (in-process: its output, and ok for exit 0) passes every check and names the normalized schema. */
export function assertDoctorPasses(root: string, what = root): void {
  const d = doctor(root);
  assert.ok(d.ok, `${what}: exit 0\n${d.text}`);
  assert.match(d.text, /all checks passed/, what);
  assert.match(d.text, /^✓ schema\s+normalized schema/m, `${what}: the schema line names the generation`);
  const bad = d.text.split('\n').filter((l) => l.startsWith('✗') || l.startsWith('–'));
  assert.deepEqual(bad, [], `${what}: no failed and no skipped check`);
}
