import type { Db } from '../../db/database.js';
import type { Connection } from '../../db/sqlite.js';
import { OWN_SCHEMA_VERSION } from '../own/schema.js';
import { tableSql } from './tableSql.js';

/**
 * ralph-mcp's own tables on a legacy project, and what migrate does with each. Leases, the session record
 * and task histories are carried row for row (task ids are kept, so every row still means what it meant);
 * signal verbs become Ralph's own signals (write.ts); mirrors and the search index are rebuilt from Ralph's
 * rows. A table of ours that is none of these (a newer ralph-mcp's) refuses the migration if it holds rows.
 */

interface Carried {
  columns: readonly string[];
  /** Which rows still mean something on the new file (SQL; `legacy.` names the snapshot's tables). */
  keep?: string;
  /** Rows the new file makes itself (its own meta keys), left out of the comparison. */
  fresh?: string;
  /** The column that holds the migration's own audit row id (its record), left out of the comparison. */
  migration?: string;
}

/** Meta keys the new file writes itself: our tables' version, and the marks of the mirrors and index it rebuilds. */
const REBUILT_META = [
  'schema_version',
  'search_index',
  'title_keys',
  'task_deps',
  'task_tags',
  'task_facets',
  'task_rows',
];

const CARRIED: Record<string, Carried> = {
  ralph_mcp_meta: {
    columns: ['key', 'value'],
    keep: `key NOT IN (${REBUILT_META.map((k) => `'${k}'`).join(', ')})`,
    fresh: `key IN (${REBUILT_META.map((k) => `'${k}'`).join(', ')})`,
  },
  ralph_mcp_audit: {
    columns: ['id', 'session_id', 'recipe', 'discipline', 'task_id', 'tool', 'arguments', 'outcome', 'created'],
    migration: 'id',
  },
  ralph_mcp_audit_tasks: { columns: ['task_id', 'audit_id'], migration: 'audit_id' },
  ralph_mcp_signals: {
    columns: ['id', 'session_id', 'recipe', 'discipline', 'task_id', 'kind', 'reason', 'created'],
  },
  // A claim on a task that no longer exists holds nothing; its id may be given to a new task.
  ralph_mcp_claims: {
    columns: ['task_id', 'session_id', 'claimed_at', 'lease_until'],
    keep: 'task_id IN (SELECT id FROM legacy.tasks)',
  },
};

/** Moved into Ralph's tables by write.ts: signal verbs into task_signals, knowledge into subsystem_comments. */
const MOVED = new Set(['ralph_mcp_task_signals', 'ralph_mcp_feature_knowledge']);
/** Rebuilt on the new file from Ralph's rows: the legacy list mirrors and the search index (FTS5 and its shadows). */
const REBUILT = new Set([
  'ralph_mcp_task_deps',
  'ralph_mcp_task_tags',
  'ralph_mcp_search',
  'ralph_mcp_search_dirty',
  'ralph_mcp_title_keys',
]);

export interface OwnPlan {
  /** The carried tables this file has, with their row counts (all, and those kept). */
  tables: { name: string; rows: number; kept: number }[];
  rebuilt: string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface OwnSql {
  /** On the snapshot alone (its tables are `main` there): all rows, and those kept. */
  rows: string;
  kept: string;
  /** On the new file, the snapshot attached as `legacy`. */
  copy: string;
  missing: string;
  extra: string;
  count: string;
}

/**
 * Each carried table's statements, made once from the constant list above (our own table and column names,
 * quoted, and conditions); the migration's audit row id is bound (@audit). Rows compare with their storage
 * types, so that 1, 1.0 and '1' never pass for each other.
 */
function ownStatements(): Record<string, OwnSql> {
  const out: Record<string, OwnSql> = {};
  for (const [name, spec] of Object.entries(CARRIED)) {
    const table = quote(name);
    const plain = spec.columns.map(quote).join(', ');
    const typed = spec.columns.map((c) => `${quote(c)}, typeof(${quote(c)})`).join(', ');
    const keep = spec.keep ? ` WHERE ${spec.keep}` : '';
    const ours = [
      ...(spec.fresh ? [`NOT (${spec.fresh})`] : []),
      ...(spec.migration ? [`${quote(spec.migration)} IS NOT @audit`] : []),
    ];
    const was = `SELECT ${typed} FROM legacy.${table}${keep}`;
    const now = `SELECT ${typed} FROM main.${table}${ours.length > 0 ? ` WHERE ${ours.join(' AND ')}` : ''}`;
    out[name] = {
      rows: `SELECT count(*) AS n FROM main.${table}`,
      kept: `SELECT count(*) AS n FROM main.${table}${keep.replace(/legacy\./g, 'main.')}`,
      copy: `INSERT INTO main.${table} (${plain}) SELECT ${plain} FROM legacy.${table}${keep}`,
      missing: `${was} EXCEPT ${now} LIMIT 1`,
      extra: `${now} EXCEPT ${was} LIMIT 1`,
      count: `SELECT count(*) AS n FROM (${now})`,
    };
  }
  return out;
}
const OWN_SQL = ownStatements();

/** Our tables in the legacy file (shadow tables of the search index included), by name. */
function ownTables(src: Connection): { name: string; type: string }[] {
  return src
    .prepare(
      `SELECT name, type FROM pragma_table_list
       WHERE schema = 'main' AND name LIKE 'ralph\\_mcp\\_%' ESCAPE '\\' ORDER BY name`,
    )
    .all() as { name: string; type: string }[];
}

const count = (src: Connection, sql: string): number => Number((src.prepare(sql).get() as { n: number }).n);

/** What migrate does with each of our tables; a problem for what it cannot place. */
export function planOwn(src: Connection, problems: string[]): OwnPlan {
  const plan: OwnPlan = { tables: [], rebuilt: [] };
  for (const { name, type } of ownTables(src)) {
    const spec = CARRIED[name];
    if (spec) {
      const have = new Set(
        (src.prepare('SELECT name FROM pragma_table_info(?)').all(name) as { name: string }[]).map((c) => c.name),
      );
      const missing = spec.columns.filter((c) => !have.has(c));
      if (missing.length > 0) {
        problems.push(`${name} lacks column(s) ${missing.join(', ')} of this ralph-mcp's: it cannot be carried`);
        continue;
      }
      const sql = OWN_SQL[name]!;
      plan.tables.push({ name, rows: count(src, sql.rows), kept: count(src, sql.kept) });
    } else if (REBUILT.has(name) || type === 'shadow') plan.rebuilt.push(name);
    else if (!MOVED.has(name) && type === 'table') {
      const rows = (src.prepare(tableSql({ name, columns: [], rowid: null }).count).get() as { n: number }).n;
      if (rows > 0)
        problems.push(
          `${name} holds ${rows} row(s) this ralph-mcp does not know how to carry (a newer ralph-mcp's ` +
            'table?): nothing of ours is dropped silently; migrate with a ralph-mcp that carries it',
        );
    }
  }
  const version = plan.tables.some((t) => t.name === 'ralph_mcp_meta')
    ? (
        src.prepare("SELECT value FROM ralph_mcp_meta WHERE key = 'schema_version'").get() as
          | { value: string }
          | undefined
      )?.value
    : undefined;
  if (version !== undefined && Number(version) > OWN_SCHEMA_VERSION)
    problems.push(
      `the ralph-mcp tables are of version ${version}, newer than this ralph-mcp's (${OWN_SCHEMA_VERSION}): ` +
        'migrate with that version',
    );
  return plan;
}

/** Copies the carried rows from the attached snapshot (`legacy`) into our tables on the new file. */
export function copyOwn(db: Db, plan: OwnPlan): void {
  for (const t of plan.tables) db.raw.exec(OWN_SQL[t.name]!.copy);
}

/**
 * Each carried table holds exactly the rows it should, with their storage types, besides the rows the
 * migration adds itself (its audit record, `auditId`, if any).
 */
export function verifyOwn(db: Db, plan: OwnPlan, auditId: number | null): string[] {
  const problems: string[] = [];
  for (const t of plan.tables) {
    const sql = OWN_SQL[t.name]!;
    const bound = CARRIED[t.name]!.migration ? [{ audit: auditId }] : [];
    const missing = db.get(sql.missing, ...bound);
    const extra = db.get(sql.extra, ...bound);
    const n = db.get<{ n: number }>(sql.count, ...bound)!.n;
    if (missing) problems.push(`${t.name}: a row was not carried: ${JSON.stringify(missing)}`);
    if (extra) problems.push(`${t.name}: a row that was not there: ${JSON.stringify(extra)}`);
    if (n !== t.kept) problems.push(`${t.name}: ${t.kept} row(s) to carry became ${n}`);
  }
  return problems;
}

/** One line on what came along, for the report. */
export function describeOwn(plan: OwnPlan): string {
  const rows = (name: string) => plan.tables.find((t) => t.name === name);
  const part = (name: string, what: string) => {
    const t = rows(name);
    if (!t) return [];
    const dropped = t.rows - t.kept;
    return [`${t.kept} ${what}${dropped > 0 ? ` (${dropped} on tasks that no longer exist left out)` : ''}`];
  };
  const parts = [
    ...part('ralph_mcp_claims', 'claim(s) with their leases'),
    ...part('ralph_mcp_audit', 'audit row(s)'),
    ...part('ralph_mcp_audit_tasks', 'task-history link(s)'),
    ...part('ralph_mcp_signals', 'abort signal(s)'),
  ];
  const rebuilt = plan.rebuilt.some((n) => n.startsWith('ralph_mcp_search') || n === 'ralph_mcp_title_keys')
    ? '; the search index is rebuilt on the first search'
    : '';
  return `ralph-mcp's own records: ${parts.length > 0 ? parts.join(', ') : 'none'}${rebuilt}`;
}
