import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Db } from '../../src/db/database.js';
import { tempDir } from '../helpers/project.js';

/** Db.read: one snapshot for a reading tool's statements (session/dispatch.ts), never a write inside it. */
function opened(): { db: Db; other: Database.Database } {
  const path = join(tempDir('ralph-mcp-dbread-'), 'x.db');
  const setup = new Database(path);
  setup.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('a');");
  setup.close();
  const db = Db.open(path);
  return { db, other: new Database(path) };
}
const count = (db: Db) => db.get<{ n: number }>('SELECT count(*) AS n FROM t')!.n;

test('read(): its statements see one state, whatever another connection commits between them', () => {
  const { db, other } = opened();
  const seen = db.read(() => {
    const first = count(db);
    other.prepare("INSERT INTO t VALUES ('b')").run();
    return [first, count(db)];
  });
  assert.deepEqual(seen, [1, 1]);
  assert.equal(count(db), 2, 'the next read sees the commit');
  assert.equal(db.raw.inTransaction, false);
  db.close();
  other.close();
});

test('read(): a write inside it is refused before it runs, and the read transaction is closed', () => {
  const { db } = opened();
  assert.throws(() => db.read(() => db.write(() => db.run("INSERT INTO t VALUES ('c')"))), /a write inside read\(\)/);
  assert.equal(db.raw.inTransaction, false);
  assert.equal(count(db), 1);
  // A promise would settle after the snapshot: refused, and the transaction closed.
  assert.throws(() => db.read(() => Promise.resolve(count(db))), /returned a promise/);
  assert.equal(db.raw.inTransaction, false);
  // A throw of fn's own closes it too; a write afterwards is a write again.
  assert.throws(() => db.read(() => assert.fail('fn failed')), /fn failed/);
  assert.equal(db.raw.inTransaction, false);
  db.write(() => db.run("INSERT INTO t VALUES ('d')"));
  assert.equal(count(db), 2);
  db.close();
});

test("read() inside a write runs in the write's transaction (a write's own reads)", () => {
  const { db } = opened();
  db.write(() => {
    db.run("INSERT INTO t VALUES ('e')");
    assert.equal(
      db.read(() => count(db)),
      2,
    );
  });
  assert.equal(count(db), 2);
  db.close();
});
