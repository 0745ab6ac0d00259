import type { Connection } from '../../db/sqlite.js';
import { LEARNING_SOURCES } from '../../domain/learnings.js';
import { PRIORITIES, TASK_STATUSES } from '../../domain/rules.js';
import { expectedColumns, ralphTables } from '../schema.js';
import {
  chooseCompletedHint,
  fillCompleted,
  lacksCompleted,
  missingCompletedProblem,
  type CompletedFill,
  type CompletedFrom,
} from './completed.js';
import { planOwn, type OwnPlan } from './own.js';
import { planUserObjects, type UserPlan } from './userObjects.js';

/**
 * Reads a legacy database whole and decides where every value goes in the normalized schema. Anything
 * without a home there is a problem the migration refuses and names, so nothing is ever dropped silently.
 */

type Row = Record<string, unknown>;

export interface LegacyServer {
  name: string;
  command: string;
  args: string[];
  env: [string, string][];
}

export interface LegacyLearning {
  text: string;
  summary: string | null;
  reason: string | null;
  source: string;
  task_id: number | null;
  iteration: number | null;
  created: string | null;
  hit_count: number;
  reviewed: boolean;
  review_count: number;
  extra: string | null;
}

export interface MigrationPlan {
  metadata: Row | undefined;
  disciplines: { row: Row; skills: string[]; servers: LegacyServer[]; overrides: string | null }[];
  features: {
    row: Row;
    knowledge_paths: string[];
    context_files: string[];
    dependencies: string[];
    learnings: LegacyLearning[];
  }[];
  /** Each task's row, its lists checked (tasks.ts copies them inside SQLite, from the same rows). */
  tasks: { row: Row }[];
  comments: Row[];
  recipeConfigs: Row[];
  /**
   * taskSignals: the signal verbs kept beside their comments on this generation; they become Ralph's own
   * signals. knowledge: feature knowledge of the categories Ralph's legacy schema has no column for
   * (ralph_mcp_feature_knowledge, by id); it becomes Ralph's subsystem_comments.
   */
  own: { taskSignals: Row[]; knowledge: Row[] };
  /** Our other tables: carried, rebuilt, or a problem (own.ts). */
  ownTables: OwnPlan;
  /** A person's own tables, indexes, triggers and views (userObjects.ts). */
  user: UserPlan;
  /** The completed dates `--completed-from` fills (null: no choice was made). */
  completed: CompletedFill | null;
  problems: string[];
  /** Printed under the problems when the migration is refused (what to run instead). */
  hints: string[];
  notes: string[];
}

const STATUSES: readonly string[] = TASK_STATUSES;
const PRIORITY_SET: readonly string[] = PRIORITIES;
const PROVENANCES = ['agent', 'human', 'system'];
const LEARNING_KEYS = new Set([
  'text',
  'summary',
  'reason',
  'source',
  'task_id',
  'iteration',
  'created',
  'hit_count',
  'reviewed',
  'review_count',
]);

export function planMigration(src: Connection, completedFrom?: CompletedFrom): MigrationPlan {
  const problems: string[] = [];
  const hints: string[] = [];
  const notes: string[] = [];
  const all = (sql: string) => src.prepare(sql).all() as Row[];
  const has = (table: string) =>
    src.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;

  unknownColumnsWithData(src, problems);

  /** A JSON list column: an array whose items all pass `ok`, else a problem naming where. */
  function list<T>(value: unknown, where: string, ok: (x: unknown) => x is T, what: string): T[] {
    if (value === null || value === undefined || value === '') return [];
    let v: unknown;
    try {
      v = JSON.parse(String(value));
    } catch {
      problems.push(`${where} is not JSON (${JSON.stringify(String(value).slice(0, 60))})`);
      return [];
    }
    if (!Array.isArray(v)) {
      problems.push(`${where} is not a JSON array`);
      return [];
    }
    const bad = v.filter((x) => !ok(x));
    if (bad.length > 0)
      problems.push(`${where} holds ${bad.length} item(s) that are not ${what}: ${JSON.stringify(bad.slice(0, 3))}`);
    return v.filter(ok);
  }
  const isString = (x: unknown): x is string => typeof x === 'string';
  const isId = (x: unknown): x is number | string =>
    (typeof x === 'number' && Number.isInteger(x) && x > 0) || (typeof x === 'string' && /^[1-9]\d*$/.test(x));

  const disciplines = all('SELECT * FROM disciplines ORDER BY rowid').map((row) => {
    const where = `disciplines.mcp_servers of discipline ${JSON.stringify(row.name)}`;
    const servers = list(
      row.mcp_servers,
      where,
      (x): x is Row => x !== null && typeof x === 'object' && !Array.isArray(x),
      'objects',
    ).flatMap((s, i): LegacyServer[] => {
      const extra = Object.keys(s).filter((k) => !['name', 'command', 'args', 'env'].includes(k));
      const argsOk = s.args === undefined || (Array.isArray(s.args) && s.args.every(isString));
      const envOk =
        s.env === undefined ||
        (s.env !== null && typeof s.env === 'object' && !Array.isArray(s.env) && Object.values(s.env).every(isString));
      if (typeof s.name !== 'string' || typeof s.command !== 'string' || !argsOk || !envOk || extra.length > 0) {
        problems.push(
          `${where}[${i}] has no home in discipline_mcp_servers (needs name and command strings, args a list of strings, env an object of strings${extra.length ? `; unknown keys ${extra.join(', ')}` : ''})`,
        );
        return [];
      }
      return [
        {
          name: s.name,
          command: s.command,
          args: (s.args as string[] | undefined) ?? [],
          env: Object.entries((s.env as Record<string, string> | undefined) ?? {}),
        },
      ];
    });
    return {
      row,
      skills: list(row.skills, `disciplines.skills of discipline ${JSON.stringify(row.name)}`, isString, 'strings'),
      servers,
      overrides:
        typeof row.mcp_tool_overrides === 'string' && row.mcp_tool_overrides.trim() !== ''
          ? row.mcp_tool_overrides
          : null,
    };
  });
  duplicatesIgnoringCase(
    disciplines.map((d) => String(d.row.name)),
    'disciplines',
    problems,
  );

  const featureNames = new Set(all('SELECT name FROM features').map((r) => String(r.name)));
  const features = all('SELECT * FROM features ORDER BY rowid').map((row) => {
    const name = JSON.stringify(row.name);
    const dependencies = list(row.dependencies, `features.dependencies of feature ${name}`, isString, 'feature names');
    for (const d of dependencies) {
      if (!featureNames.has(d))
        problems.push(
          `features.dependencies of feature ${name} names feature ${JSON.stringify(d)}, which does not exist`,
        );
      if (d === row.name) problems.push(`feature ${name} depends on itself`);
    }
    return {
      row,
      knowledge_paths: list(row.knowledge_paths, `features.knowledge_paths of feature ${name}`, isString, 'strings'),
      context_files: list(row.context_files, `features.context_files of feature ${name}`, isString, 'strings'),
      dependencies: [...new Set(dependencies.filter((d) => featureNames.has(d) && d !== row.name))],
      learnings: learnings(row, problems),
    };
  });
  duplicatesIgnoringCase(
    features.map((f) => String(f.row.name)),
    'features',
    problems,
  );

  const taskIds = new Set(all('SELECT id FROM tasks').map((r) => Number(r.id)));
  const tasks = all('SELECT * FROM tasks ORDER BY id').map((row) => {
    const id = Number(row.id);
    const at = (col: string) => `tasks.${col} of task ${id}`;
    if (!STATUSES.includes(String(row.status)))
      problems.push(
        `task ${id} has status ${JSON.stringify(row.status)}; Ralph's head reads only ${STATUSES.join(', ')}`,
      );
    if (row.priority !== null && !PRIORITY_SET.includes(String(row.priority)))
      problems.push(
        `task ${id} has priority ${JSON.stringify(row.priority)}; allowed: ${PRIORITIES.join(', ')} or none`,
      );
    if (row.provenance !== null && !PROVENANCES.includes(String(row.provenance)))
      problems.push(
        `task ${id} has provenance ${JSON.stringify(row.provenance)}; allowed: ${PROVENANCES.join(', ')} or none`,
      );
    if (!completedFrom && lacksCompleted(row)) problems.push(missingCompletedProblem(id));
    if (!featureNames.has(String(row.feature)))
      problems.push(`task ${id} belongs to feature ${JSON.stringify(row.feature)}, which does not exist`);
    const deps = list(row.depends_on, at('depends_on'), isId, 'task ids').map(Number);
    for (const d of deps) {
      if (d === id) problems.push(`task ${id} depends on itself`);
      else if (!taskIds.has(d)) problems.push(`task ${id} depends on task ${d}, which does not exist`);
    }
    list(row.tags, at('tags'), isString, 'strings');
    list(row.acceptance_criteria, at('acceptance_criteria'), isString, 'strings');
    list(row.context_files, at('context_files'), isString, 'strings');
    list(row.output_artifacts, at('output_artifacts'), isString, 'strings');
    return { row };
  });
  const disciplineNames = new Set(disciplines.map((d) => String(d.row.name)));
  for (const t of tasks)
    if (!disciplineNames.has(String(t.row.discipline)))
      problems.push(
        `task ${String(t.row.id)} belongs to discipline ${JSON.stringify(t.row.discipline)}, which does not exist`,
      );

  const comments = all('SELECT * FROM task_comments ORDER BY id');
  for (const c of comments) {
    if (!taskIds.has(Number(c.task_id)))
      problems.push(`comment ${String(c.id)} is on task ${String(c.task_id)}, which does not exist`);
    if (c.priority !== null && !PRIORITY_SET.includes(String(c.priority)))
      problems.push(`comment ${String(c.id)} has priority ${JSON.stringify(c.priority)}`);
  }
  const undated = comments.filter((c) => typeof c.created !== 'string' || c.created === '').length;
  if (undated > 0) notes.push(`${undated} comment(s) had no date: their signals are dated with the migration time`);

  const own = {
    taskSignals: has('ralph_mcp_task_signals') ? all('SELECT * FROM ralph_mcp_task_signals ORDER BY id') : [],
    knowledge: has('ralph_mcp_feature_knowledge') ? all('SELECT * FROM ralph_mcp_feature_knowledge ORDER BY id') : [],
  };
  knowledgeNotes(own.knowledge, featureNames, disciplineNames, notes);
  const rows = tasks.map((t) => t.row);
  const completed = completedFrom ? fillCompleted(rows, completedFrom, problems) : null;
  const ownTables = planOwn(src, problems);
  const user = planUserObjects(src, problems);
  const withoutDate = completedFrom ? [] : rows.filter(lacksCompleted).map((r) => Number(r.id));
  if (withoutDate.length > 0) hints.push(chooseCompletedHint(withoutDate));
  if (problems.length > withoutDate.length)
    hints.push(`Fix ${withoutDate.length > 0 ? 'the others' : 'them'} in Ralph (or with SQL) and run migrate again`);
  return {
    metadata: all('SELECT * FROM metadata WHERE id = 1')[0],
    disciplines,
    features,
    tasks,
    comments,
    recipeConfigs: all('SELECT * FROM recipe_configs ORDER BY rowid'),
    own,
    ownTables,
    user,
    completed,
    problems,
    hints,
    notes,
  };
}

/**
 * Knowledge rows whose feature is gone are not carried (Ralph's cascade would have removed them); a
 * discipline that no longer exists is kept nowhere (subsystem_comments holds it by id): both are noted.
 */
function knowledgeNotes(rows: Row[], features: Set<string>, disciplines: Set<string>, notes: string[]): void {
  const orphans = rows.filter((r) => !features.has(String(r.feature))).length;
  if (orphans > 0) notes.push(`${orphans} feature knowledge entr(ies) of features that no longer exist were left out`);
  const gone = rows.filter((r) => r.discipline !== null && !disciplines.has(String(r.discipline))).length;
  if (gone > 0)
    notes.push(`${gone} feature knowledge entr(ies) named a discipline that no longer exists: carried without it`);
}

/** A feature's learnings: plain strings (an auto learning seen once) or objects with a text. */
function learnings(row: Row, problems: string[]): LegacyLearning[] {
  const where = `features.learnings of feature ${JSON.stringify(row.name)}`;
  if (row.learnings === null || row.learnings === '') return [];
  let items: unknown;
  try {
    items = JSON.parse(String(row.learnings));
  } catch {
    problems.push(`${where} is not JSON`);
    return [];
  }
  if (!Array.isArray(items)) {
    problems.push(`${where} is not a JSON array`);
    return [];
  }
  return items.flatMap((item, i): LegacyLearning[] => {
    if (typeof item === 'string')
      return [
        {
          text: item,
          summary: null,
          reason: null,
          source: 'auto',
          task_id: null,
          iteration: null,
          created: null,
          hit_count: 1,
          reviewed: false,
          review_count: 0,
          extra: null,
        },
      ];
    if (item === null || typeof item !== 'object' || typeof (item as Row).text !== 'string') {
      problems.push(`${where}[${i}] is neither a string nor an object with a text`);
      return [];
    }
    const o = item as Row;
    const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null);
    const extra = Object.fromEntries(Object.entries(o).filter(([k]) => !LEARNING_KEYS.has(k)));
    // A field of a known name but another type has no column: keep it whole in `extra` instead.
    for (const k of ['summary', 'reason', 'created'] as const)
      if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string') extra[k] = o[k];
    for (const k of ['task_id', 'iteration', 'hit_count', 'review_count'] as const)
      if (o[k] !== undefined && o[k] !== null && int(o[k]) === null) extra[k] = o[k];
    if (o.source !== undefined && !(LEARNING_SOURCES as readonly unknown[]).includes(o.source)) extra.source = o.source;
    if (o.reviewed !== undefined && typeof o.reviewed !== 'boolean') extra.reviewed = o.reviewed;
    return [
      {
        text: o.text as string,
        summary: typeof o.summary === 'string' ? o.summary : null,
        reason: typeof o.reason === 'string' ? o.reason : null,
        source: (LEARNING_SOURCES as readonly unknown[]).includes(o.source) ? String(o.source) : 'auto',
        task_id: int(o.task_id),
        iteration: int(o.iteration),
        created: typeof o.created === 'string' && o.created !== '' ? o.created : null,
        hit_count: int(o.hit_count) ?? 1,
        reviewed: o.reviewed === true,
        review_count: int(o.review_count) ?? 0,
        extra: Object.keys(extra).length > 0 ? JSON.stringify(extra) : null,
      },
    ];
  });
}

function duplicatesIgnoringCase(names: string[], what: string, problems: string[]): void {
  const seen = new Map<string, string>();
  for (const n of names) {
    const k = n.toLowerCase();
    if (seen.has(k))
      problems.push(
        `${what} ${JSON.stringify(seen.get(k))} and ${JSON.stringify(n)} differ only in case; Ralph's head compares names case-insensitively: rename one first`,
      );
    else seen.set(k, n);
  }
}

/** Columns a newer (or hand-edited) legacy database has beyond ours: fine when empty, a problem when they hold data. */
function unknownColumnsWithData(src: Connection, problems: string[]): void {
  for (const table of ralphTables('legacy')) {
    // Every column of schema/ralph-legacy.sql has a home; only the others need looking at.
    const known = expectedColumns('legacy')
      .get(table)!
      .map((c) => c.name);
    const cols = (src.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map(
      (c) => c.name,
    );
    for (const c of cols.filter((x) => !known.includes(x))) {
      // The column name comes from the database's own schema, quoted as an identifier.
      const n = (
        src.prepare(`SELECT count(*) AS n FROM "${table}" WHERE "${c.replace(/"/g, '""')}" IS NOT NULL`).get() as {
          n: number;
        }
      ).n;
      if (n > 0)
        problems.push(`${table}.${c} holds values in ${n} row(s) and has no home in Ralph's normalized schema`);
    }
  }
}
