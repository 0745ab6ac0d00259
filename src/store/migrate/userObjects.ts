import type { Db } from '../../db/database.js';
import type { Connection } from '../../db/sqlite.js';
import { ralphDdl, ralphTables } from '../schema.js';
import { tableSql, type TableShape } from './tableSql.js';

/**
 * A person's own objects in Ralph's file: tables, indexes, triggers and views that are neither Ralph's nor
 * ours. Those that stand on their own (a table and what is built on it) are carried as they were: the same
 * SQL, every row with its rowid and storage types, the AUTOINCREMENT counter. Those tied to Ralph's legacy
 * tables (an index or trigger on one, a view or trigger that names one, a foreign key into one) would
 * break or be lost once those tables are gone, and a trigger or view naming Ralph's new tables would make
 * Ralph's own table rebuilds fail: any of them refuses the migration, by name, before anything is written.
 */

export interface UserObject {
  type: 'table' | 'index' | 'trigger' | 'view';
  name: string;
  table: string;
  sql: string;
}

export interface UserTable extends TableShape {
  rows: number;
  /** sqlite_sequence's value for it (AUTOINCREMENT), if any. */
  sequence: number | null;
}

export interface UserPlan {
  /** In the order they are made: tables, then indexes, triggers and views. */
  objects: UserObject[];
  tables: UserTable[];
}

const ORDER = { table: 0, index: 1, trigger: 2, view: 3 } as const;
const lower = (s: string) => s.toLowerCase();

interface RalphNames {
  /** The legacy file's own objects (tables and indexes): Ralph's, never a person's. */
  legacy: Set<string>;
  /** Every object name of the normalized schema: taken on the new file. */
  normalized: Set<string>;
  /** The tables of either generation: what no object of a person's may be tied to. */
  tables: Set<string>;
}

/** Object names (lower-cased: SQLite compares names case-insensitively) from Ralph's DDL of each generation. */
function ralphNames(): RalphNames {
  const made = (ddl: string) =>
    [...ddl.matchAll(/CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF NOT EXISTS\s+)?(\w+)/gi)].map((m) =>
      lower(m[1]!),
    );
  return {
    legacy: new Set(made(ralphDdl('legacy'))),
    normalized: new Set(made(ralphDdl('normalized'))),
    tables: new Set([...ralphTables('legacy'), ...ralphTables('normalized')].map(lower)),
  };
}

const isOurs = (name: string) => lower(name).startsWith('ralph_mcp_');

/** The names an SQL text mentions (comments and string literals left out), lower-cased. */
export function namesIn(sql: string): Set<string> {
  const out = new Set<string>();
  const re =
    /--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|'(?:[^']|'')*'|"((?:[^"]|"")*)"|`((?:[^`]|``)*)`|\[([^\]]*)\]|([A-Za-z_][\w$]*)/g;
  for (const m of sql.matchAll(re)) {
    const name = m[1]?.replace(/""/g, '"') ?? m[2]?.replace(/``/g, '`') ?? m[3] ?? m[4];
    if (name !== undefined) out.add(lower(name));
  }
  return out;
}

/** The file's objects (shadow tables of a virtual table aside: they come with it). */
function schemaObjects(src: Connection): { objects: UserObject[]; kinds: Map<string, string> } {
  const kinds = new Map(
    (
      src.prepare("SELECT name, type FROM pragma_table_list WHERE schema = 'main'").all() as {
        name: string;
        type: string;
      }[]
    ).map((r) => [lower(r.name), r.type]),
  );
  const objects = (
    src
      .prepare(
        `SELECT type, name, tbl_name AS "table", sql FROM sqlite_master
         WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND sql IS NOT NULL ORDER BY rowid`,
      )
      .all() as UserObject[]
  ).filter((o) => kinds.get(lower(o.name)) !== 'shadow');
  return { objects, kinds };
}

/** The person's objects in the legacy file, and a problem for each that cannot be carried safely. */
export function planUserObjects(src: Connection, problems: string[]): UserPlan {
  const ralph = ralphNames();
  const { objects: all, kinds } = schemaObjects(src);
  const objects = all.filter((o) => !isOurs(o.name) && !ralph.legacy.has(lower(o.name)));
  const theirs = new Set(objects.filter((o) => o.type === 'table' || o.type === 'view').map((o) => lower(o.name)));
  // Of the names given, those of Ralph's (either generation) or our tables that are not the person's own.
  const tiedTo = (names: Iterable<string>) =>
    [...names].filter((n) => !theirs.has(n) && (ralph.tables.has(n) || isOurs(n)));
  for (const o of objects) {
    const why = unsafe(src, o, theirs, ralph, kinds, tiedTo);
    if (why) problems.push(`your ${o.type} ${JSON.stringify(o.name)} ${why}`);
  }
  objects.sort((a, b) => ORDER[a.type] - ORDER[b.type]);
  const tables = objects.filter((o) => o.type === 'table').map((o) => userTable(src, o.name));
  return { objects, tables };
}

/** Why an object cannot be carried safely, or null. */
function unsafe(
  src: Connection,
  o: UserObject,
  theirs: Set<string>,
  ralph: RalphNames,
  kinds: Map<string, string>,
  tiedTo: (names: Iterable<string>) => string[],
): string | null {
  const fix = "drop it (or move it off Ralph's tables) and run migrate again";
  if (ralph.normalized.has(lower(o.name)))
    return "has the name of an object of Ralph's normalized schema: rename it and run migrate again";
  if (o.type === 'table' && kinds.get(lower(o.name)) === 'virtual')
    return (
      'is a virtual table, which migrate cannot copy faithfully: ' +
      'drop it (or copy its rows into a plain table) and run migrate again'
    );
  if (o.type === 'table') {
    const parents = (
      src.prepare('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)').all(o.name) as { table: string }[]
    ).map((r) => lower(r.table));
    const foreign = tiedTo(parents);
    return foreign.length > 0 ? `has a foreign key into ${foreign.join(', ')}, a table of Ralph's: ${fix}` : null;
  }
  if ((o.type === 'index' || o.type === 'trigger') && !theirs.has(lower(o.table)))
    return `is on ${o.table}, a table of Ralph's (or ralph-mcp's) that the normalized schema replaces: ${fix}`;
  if (o.type === 'index') return null;
  const named = tiedTo(namesIn(o.sql));
  if (named.length > 0)
    return `names ${named.join(', ')}, table(s) of Ralph's (or ralph-mcp's) that a migration replaces: ${fix}`;
  return null;
}

function userTable(src: Connection, name: string): UserTable {
  const cols = src.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(name) as {
    name: string;
    hidden: number;
  }[];
  const info = src.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").get(name) as {
    wr: number;
  };
  const taken = new Set(cols.map((c) => lower(c.name)));
  const rowid = info.wr === 1 ? null : (['rowid', '_rowid_', 'oid'].find((n) => !taken.has(n)) ?? null);
  const shape = { name, rowid, columns: cols.filter((c) => c.hidden === 0).map((c) => c.name) };
  const counters = src.prepare("SELECT 1 AS x FROM sqlite_master WHERE name = 'sqlite_sequence'").get() !== undefined;
  const seq = counters
    ? (src.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(name) as { seq: number } | undefined)
    : undefined;
  const rows = (src.prepare(tableSql(shape).count).get() as { n: number }).n;
  return { ...shape, rows, sequence: seq?.seq ?? null };
}

/** Runs the person's own statements that made the objects, as they were written. */
function makeObjects(db: Db, objects: readonly UserObject[]): void {
  for (const o of objects) db.raw.exec(o.sql);
}

/**
 * Makes the person's objects on the new file from the attached snapshot (`legacy`): tables, their rows
 * and counters, then indexes, triggers (after the rows, so that none fires on the copy) and views.
 */
export function copyUserObjects(db: Db, plan: UserPlan): void {
  makeObjects(
    db,
    plan.objects.filter((x) => x.type === 'table'),
  );
  for (const t of plan.tables) {
    db.raw.exec(tableSql(t).copy);
    if (t.sequence !== null) {
      db.run('DELETE FROM main.sqlite_sequence WHERE name = ?', t.name);
      db.run(
        'INSERT INTO main.sqlite_sequence (name, seq) SELECT name, seq FROM legacy.sqlite_sequence WHERE name = ?',
        t.name,
      );
    }
  }
  makeObjects(
    db,
    plan.objects.filter((x) => x.type !== 'table'),
  );
}

const SEQUENCE = {
  main: 'SELECT seq, typeof(seq) AS t FROM main.sqlite_sequence WHERE name = ?',
  legacy: 'SELECT seq, typeof(seq) AS t FROM legacy.sqlite_sequence WHERE name = ?',
};

/** The person's objects arrived as they were: the same SQL, rows (rowid and storage types) and counters; views read. */
export function verifyUserObjects(db: Db, plan: UserPlan): string[] {
  const problems: string[] = [];
  for (const o of plan.objects) {
    const now = db.get<{ sql: string }>(
      'SELECT sql FROM main.sqlite_master WHERE type = ? AND name = ?',
      o.type,
      o.name,
    );
    if (now?.sql !== o.sql) problems.push(`your ${o.type} ${JSON.stringify(o.name)} did not arrive as it was`);
  }
  for (const t of plan.tables) {
    const sql = tableSql(t);
    const name = JSON.stringify(t.name);
    if (db.get<{ n: number }>(sql.count)!.n !== t.rows || db.get(sql.differ))
      problems.push(`your table ${name}: its ${t.rows} row(s) did not arrive as they were`);
    const seq = (side: keyof typeof SEQUENCE) => JSON.stringify(db.get(SEQUENCE[side], t.name));
    if (t.sequence !== null && seq('main') !== seq('legacy'))
      problems.push(`your table ${name}: its AUTOINCREMENT counter changed`);
    if (db.all(sql.foreignKeys.main).length !== db.all(sql.foreignKeys.legacy).length)
      problems.push(`your table ${name}: its foreign keys no longer hold as they did`);
  }
  for (const v of plan.objects.filter((o) => o.type === 'view')) {
    try {
      db.raw.prepare(tableSql({ name: v.name, columns: [], rowid: null }).readView);
    } catch (err) {
      problems.push(`your view ${JSON.stringify(v.name)} no longer reads: ${(err as Error).message}`);
    }
  }
  return problems;
}

/** One line on what came along, for the report. */
export function describeUserObjects(plan: UserPlan): string {
  if (plan.objects.length === 0) return "your own objects: none (only Ralph's and ralph-mcp's were found)";
  const shown = plan.objects.map((o) => {
    const t = plan.tables.find((x) => x.name === o.name);
    return `${o.type} ${o.name}${t ? ` (${t.rows} row(s))` : ''}`;
  });
  return `your own objects, carried as they were: ${shown.join(', ')}`;
}
