import type { Db } from '../db/database.js';
import { connectSqlite } from '../db/sqlite.js';
import { schemaText } from '../domain/packageInfo.js';
import { GENERATIONS, type Generation } from './records.js';

/**
 * Which of Ralph's two schema generations a database holds (both report user_version 1, so the tables tell
 * them apart), and whether it drifted. Expectations are read from our copy of each generation's DDL, so
 * there is no second list to keep in step.
 */

/** Ralph's schema version (PRAGMA user_version) on both generations. It is Ralph's: only `init` writes it. */
export const RALPH_USER_VERSION = 1;

export const ralphDdl = (generation: Generation): string => schemaText(`ralph-${generation}.sql`);

/** What each generation tolerates and what ralph-mcp writes there. */
const SPEC: Record<
  Generation,
  {
    label: string;
    optionalColumns: Record<string, readonly string[]>;
    inserted: ReadonlySet<string>;
    checked: readonly (readonly [string, string])[];
  }
> = {
  legacy: {
    label: 'legacy schema (Ralph 936f316: features, tasks with JSON lists)',
    // SPEC-070's override column, absent from databases before it.
    optionalColumns: { disciplines: ['mcp_tool_overrides'] },
    inserted: new Set(['features', 'disciplines', 'tasks', 'task_comments']),
    checked: [],
  },
  normalized: {
    label: "normalized schema (Ralph's head: subsystems, task_details + runtime_tasks, task_signals)",
    optionalColumns: {},
    inserted: new Set([
      'subsystems',
      'subsystem_knowledge_paths',
      'subsystem_context_files',
      'subsystem_dependencies',
      'subsystem_comments',
      'disciplines',
      'discipline_skills',
      'task_details',
      'runtime_tasks',
      'task_tags',
      'task_dependencies',
      'task_acceptance_criteria',
      'task_context_files',
      'task_output_artifacts',
      'task_signals',
      'agent_sessions',
    ]),
    // The CHECK value lists ralph-mcp writes by (status, priority, the signal columns): a change there
    // means values we would write are refused, or values we cannot interpret are allowed.
    checked: [
      ['runtime_tasks', 'status'],
      ['runtime_tasks', 'provenance'],
      ['task_details', 'priority'],
      ['task_signals', 'verb'],
      ['task_signals', 'severity'],
      ['task_signals', 'category'],
      ['task_signals', 'kind'],
      ['task_signals', 'scope'],
      ['agent_sessions', 'kind'],
      ['agent_sessions', 'started_by'],
      ['agent_sessions', 'status'],
      ['subsystem_comments', 'category'],
    ],
  },
};

export const generationLabel = (g: Generation): string => SPEC[g].label;

interface Column {
  name: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

interface Expected {
  tables: string[];
  columns: Map<string, Column[]>;
  checks: Map<string, string>;
  /** Each table's CREATE statement as SQLite keeps it: a table whose statement is this one has not drifted. */
  createSql: Map<string, string>;
}

/** Expected, as plain data: what the build computes once (scripts/serverBuild.mjs). */
export interface ExpectedData {
  tables: string[];
  columns: [string, Column[]][];
  checks: [string, string][];
  createSql: [string, string][];
}

/** Computes a generation's expectations from its DDL, run on an in-memory database. */
export function expectedData(g: Generation): ExpectedData {
  const mem = connectSqlite(':memory:');
  try {
    mem.exec(ralphDdl(g));
    const tables = (
      mem
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
        )
        .all() as { name: string }[]
    ).map((r) => r.name);
    const columns = tables.map(
      (t) =>
        [t, mem.prepare('SELECT name, "notnull", dflt_value, pk FROM pragma_table_info(?)').all(t) as Column[]] as [
          string,
          Column[],
        ],
    );
    const sqlOf = (t: string) =>
      (mem.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) as { sql: string }).sql;
    const checks = SPEC[g].checked.map(([t, c]) => [`${t}.${c}`, checkLists(sqlOf(t), c)] as [string, string]);
    const createSql = tables.map((t) => [t, sqlOf(t)] as [string, string]);
    return { tables, columns, checks, createSql };
  } finally {
    mem.close();
  }
}

/**
 * Both generations' expectations as the bundle's build computed them, installed by the start-up edge so a
 * start need not compute them; absent in tsc's output, where they are computed on first use.
 */
let builtExpected: Record<Generation, ExpectedData> | undefined;
export const useBuiltExpectedSchema = (table: Record<Generation, ExpectedData> | undefined): void => {
  builtExpected = table;
};

const expectedCache = new Map<Generation, Expected>();
function expected(g: Generation): Expected {
  let e = expectedCache.get(g);
  if (!e) {
    const data = builtExpected?.[g] ?? expectedData(g);
    e = {
      tables: data.tables,
      columns: new Map(data.columns),
      checks: new Map(data.checks),
      createSql: new Map(data.createSql),
    };
    expectedCache.set(g, e);
  }
  return e;
}

/** The tables of Ralph's schema of this generation, in creation order. */
export const ralphTables = (g: Generation): string[] => expected(g).tables;
/** The legacy generation's tables. */
export const RALPH_TABLES = [
  'metadata',
  'features',
  'disciplines',
  'tasks',
  'task_comments',
  'recipe_configs',
] as const;
export const expectedColumns = (g: Generation = 'legacy'): Map<string, Column[]> => expected(g).columns;

/**
 * Every `column IN (…)` value list in a CREATE TABLE statement, for one column, as a canonical string
 * ("a,b,c|x,y": each list sorted, the lists sorted). task_signals.kind has one list per verb.
 */
export function checkLists(createSql: string, column: string): string {
  const re = new RegExp(String.raw`(?:^|[^\w"])"?${column}"?\s+IN\s*\(([^)]*)\)`, 'gi');
  const lists: string[] = [];
  for (const m of createSql.matchAll(re)) {
    const values = [...m[1]!.matchAll(/'((?:[^']|'')*)'/g)].map((v) => v[1]!.replace(/''/g, "'"));
    if (values.length > 0) lists.push(values.sort().join(','));
  }
  return lists.sort().join('|');
}

/**
 * Schema drift that would make ralph-mcp fail or write wrong rows: a column of our DDL missing, a NOT NULL
 * column without a default that our INSERTs do not fill, or (normalized) a changed CHECK list we write by.
 * Unknown nullable or defaulted columns, and a missing SPEC-070 mcp_tool_overrides, are fine.
 */
export function columnDrift(db: Db, tables: readonly string[], g: Generation = 'legacy'): string[] {
  const problems: string[] = [];
  const spec = SPEC[g];
  // A table's columns and CHECKs are its CREATE statement's (SQLite rewrites it on ALTER TABLE), so a
  // table kept exactly as Ralph's DDL makes it needs no closer look: every database Ralph writes, at most
  // a table or two otherwise. The closer look cost a normalized start ~2 ms.
  const created = createSqlOf(db, tables);
  const drifted = tables.filter((t) => created.get(t) !== expected(g).createSql.get(t));
  if (drifted.length === 0) return problems;
  const columns = columnsOf(db, drifted);
  for (const table of drifted) {
    const want = expected(g).columns.get(table);
    if (!want) continue;
    const have = columns.get(table) ?? [];
    const known = new Set(want.map((c) => c.name));
    const optional = spec.optionalColumns[table] ?? [];
    const missing = want
      .filter((c) => !have.some((h) => h.name === c.name) && !optional.includes(c.name))
      .map((c) => c.name);
    const unknown = have.filter((h) => !known.has(h.name) && !optional.includes(h.name));
    const parts: string[] = [];
    if (missing.length > 0) {
      const renamed =
        unknown.length > 0
          ? ` (it has unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => c.name).join(', ')}: renamed?)`
          : '';
      parts.push(`lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}${renamed}`);
    }
    if (spec.inserted.has(table)) {
      const required = (c: Column) => c.notnull === 1 && c.dflt_value === null && c.pk === 0;
      const newlyRequired = have.filter(
        (h) => required(h) && (!known.has(h.name) || !required(want.find((w) => w.name === h.name)!)),
      );
      if (newlyRequired.length > 0) {
        parts.push(
          `has NOT NULL column${newlyRequired.length > 1 ? 's' : ''} without a default that ralph-mcp does not fill: ${newlyRequired.map((c) => c.name).join(', ')}`,
        );
      }
    }
    const createSql = created.get(table) ?? '';
    for (const [t, column] of spec.checked) {
      if (t !== table) continue;
      const wantList = expected(g).checks.get(`${t}.${column}`)!;
      const haveList = checkLists(createSql, column);
      if (haveList !== wantList)
        parts.push(
          `has a CHECK on ${column} allowing (${haveList.replace(/\|/g, ' / ') || 'no list'}) where ralph-mcp knows (${wantList.replace(/\|/g, ' / ')})`,
        );
    }
    if (parts.length > 0) problems.push(`table ${table} ${parts.join('; ')}`);
  }
  return problems;
}

/** The CREATE statement of each of `tables` that exists, in one query. */
function createSqlOf(db: Db, tables: readonly string[]): Map<string, string> {
  return new Map(
    db
      .all<{ name: string; sql: string | null }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))",
        JSON.stringify(tables),
      )
      .map((r) => [r.name, r.sql ?? ''] as const),
  );
}

/** The columns (in their order) of each of `tables`, in one query whatever their number. */
function columnsOf(db: Db, tables: readonly string[]): Map<string, Column[]> {
  const rows = db.all<Column & { tbl: string }>(
    `SELECT m.name AS tbl, p.name, p."notnull", p.dflt_value, p.pk FROM sqlite_master AS m, pragma_table_info(m.name) AS p
     WHERE m.type = 'table' AND m.name IN (SELECT value FROM json_each(?)) ORDER BY m.name, p.cid`,
    JSON.stringify(tables),
  );
  const columns = new Map<string, Column[]>();
  for (const { tbl, ...column } of rows) {
    const list = columns.get(tbl);
    if (list) list.push(column);
    else columns.set(tbl, [column]);
  }
  return columns;
}

export interface SchemaInfo {
  generation: Generation;
  userVersion: number;
  /** legacy only: SPEC-070's optional column; databases Ralph wrote before SPEC-070 do not have it. */
  hasToolOverrides: boolean;
  /** One message per drifted table; empty for every database Ralph writes. See columnDrift. */
  drift: string[];
}

/** A database that is neither generation (or a mix of both): what it resembles most and what it lacks. */
export interface NotRalph {
  generation: null;
  userVersion: number;
  resembles: Generation;
  missing: string[];
  /** Tables of the other generation it also holds (a mix). */
  foreign: string[];
}

/** Tables only one generation has: holding any of the other's means a mix, never a clean generation. */
const OWN_TABLES = (g: Generation): string[] => {
  const other = GENERATIONS.find((x) => x !== g)!;
  return ralphTables(g).filter((t) => !ralphTables(other).includes(t));
};

export function inspectSchema(db: Db): SchemaInfo | NotRalph {
  const userVersion = Number(db.raw.pragma('user_version', { simple: true }));
  const present = new Set(
    db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name),
  );
  const fit = GENERATIONS.map((g) => {
    const other = GENERATIONS.find((x) => x !== g)!;
    return {
      g,
      missing: ralphTables(g).filter((t) => !present.has(t)),
      foreign: OWN_TABLES(other).filter((t) => present.has(t)),
    };
  });
  const clean = fit.find((f) => f.missing.length === 0 && f.foreign.length === 0);
  if (!clean) {
    // Resemblance: the share of a generation's tables present.
    const score = (f: (typeof fit)[number]) => (ralphTables(f.g).length - f.missing.length) / ralphTables(f.g).length;
    const best = fit.reduce((a, b) => (score(b) > score(a) ? b : a));
    return { generation: null, userVersion, resembles: best.g, missing: best.missing, foreign: best.foreign };
  }
  const g = clean.g;
  const hasToolOverrides =
    g === 'legacy' &&
    db
      .all<{ name: string }>('SELECT name FROM pragma_table_info(?)', 'disciplines')
      .some((c) => c.name === 'mcp_tool_overrides');
  return { generation: g, userVersion, hasToolOverrides, drift: columnDrift(db, ralphTables(g), g) };
}

/** One line for a database that is not (cleanly) one of Ralph's generations. */
export function notRalphMessage(dbPath: string, info: NotRalph): string {
  const parts = [];
  if (info.missing.length > 0) parts.push(`missing tables: ${info.missing.join(', ')}`);
  if (info.foreign.length > 0) parts.push(`it also holds tables of the other generation: ${info.foreign.join(', ')}`);
  return `${dbPath} is not a Ralph database (${parts.join('; ')}); it resembles Ralph's ${generationLabel(info.resembles)} most`;
}
