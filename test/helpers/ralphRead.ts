/**
 * Reads a Ralph plan database back the way Ralph itself reads it, so tests can check that what our
 * server wrote is what Ralph will see (and that Ralph can still load it at all).
 *
 * Two schema generations exist (see ../shared/ralph-head.md):
 * - legacy (Ralph 936f316): `features`, `tasks` with JSON-array TEXT columns, `task_comments`.
 * - normalized (Ralph head 0c56edd): `subsystems`, `task_details` + `runtime_tasks`, child tables,
 *   `task_signals`, `agent_sessions`, `subsystem_comments`.
 * The readers below follow Ralph's own queries (crates/sqlite-db/src/*.rs at each commit), including its
 * quirks: what it silently drops, what it silently defaults, and what makes a whole read fail.
 *
 * Deliberately self-contained (better-sqlite3 + node built-ins only, nothing from src/): an independent
 * reader is the point — it must not share bugs with the code under test.
 */
import Database from 'better-sqlite3';

type Db = Database.Database;
type Row = Record<string, unknown>;

export type Generation = 'legacy' | 'normalized';

/** TaskStatus::parse in types.rs: exactly these six. The CHECK also admits needs_input/failed; Ralph does not. */
export const RALPH_STATUSES = ['draft', 'pending', 'in_progress', 'done', 'blocked', 'skipped'] as const;
/** Priority::parse and TaskProvenance::parse (case-sensitive); the CHECK sets of agent and effort. */
const RALPH_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
const RALPH_PROVENANCES = ['agent', 'human', 'system'] as const;
const RALPH_AGENTS = ['claude', 'codex'] as const;
const RALPH_EFFORTS = ['low', 'medium', 'high'] as const;

// ---------------------------------------------------------------------------------------------------------
// small plumbing

function withDb<T>(dbPath: string, read: (db: Db) => T): T {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Reads `dbPath` with the reader of its generation. */
function readAs<A extends unknown[], T>(
  dbPath: string,
  normalized: (db: Db, ...args: A) => T,
  legacy: (db: Db, ...args: A) => T,
  ...args: A
): T {
  return withDb(dbPath, (db) => (generationOfDb(db) === 'normalized' ? normalized : legacy)(db, ...args));
}

const all = (db: Db, sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as Row[];
const get = (db: Db, sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as Row | undefined;
const column = (db: Db, sql: string, id: number): unknown[] => db.prepare(sql).pluck().all(id);

/** A NOT NULL TEXT column, as stored. */
const str = (v: unknown) => v as string;
/** rusqlite `Option<String>` read with `.ok()`: anything that is not TEXT reads as None. */
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : (v as number));
/** A 0/1 column read as a bool. */
const bool = (v: unknown): boolean | null => (typeof v === 'number' ? v !== 0 : null);

/** rusqlite u32 read with `.ok()`: out-of-range or non-integer values read as None. */
function u32(v: unknown): number | null {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff ? n : null;
}

function oneOf<T extends string>(set: readonly T[], v: unknown): T | undefined {
  return typeof v === 'string' && (set as readonly string[]).includes(v) ? (v as T) : undefined;
}

/** The columns `keys` of `r`, in that order, each read with `read`. */
function cols<K extends string, V>(r: Row, keys: readonly K[], read: (v: unknown) => V): Record<K, V> {
  return Object.fromEntries(keys.map((k) => [k, read(r[k])])) as Record<K, V>;
}

function generationOfDb(db: Db): Generation {
  // Both generations report user_version 1, so only the tables can tell them apart.
  const table = (name: string) => get(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name);
  if (table('runtime_tasks')) return 'normalized';
  if (table('tasks')) return 'legacy';
  throw new Error('not a Ralph plan database: neither runtime_tasks nor tasks exists');
}

export function generationOf(dbPath: string): Generation {
  return withDb(dbPath, generationOfDb);
}

// serde_json semantics of the legacy JSON columns: `from_str::<Vec<T>>(..).unwrap_or_default()`, so one
// bad element (or bad JSON, or a non-array) yields an EMPTY list, never a partial one.

function parseJson(json: unknown): unknown {
  if (typeof json !== 'string') return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function serdeList<T>(json: unknown, item: (v: unknown) => T | undefined): T[] {
  const parsed = parseJson(json);
  if (!Array.isArray(parsed)) return [];
  const out = parsed.map(item);
  return out.includes(undefined) ? [] : (out as T[]);
}

const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const asU32 = (v: unknown): number | undefined => u32(v) ?? undefined;
const stringList = (json: unknown): string[] => serdeList(json, asString);
const idList = (json: unknown): number[] => serdeList(json, asU32);

// ---------------------------------------------------------------------------------------------------------
// the task list (Ralph head: SqliteDb::get_task_list_items)

/** An item from a row both generations' queries name alike; the side lists and the count are filled after. */
function listItemOf(r: Row) {
  return {
    id: num(r.id),
    ...cols(r, ['subsystem', 'discipline', 'title'], str),
    description: text(r.description),
    status: oneOf(RALPH_STATUSES, r.status) ?? 'pending',
    priority: oneOf(RALPH_PRIORITIES, r.priority) ?? null,
    provenance: oneOf(RALPH_PROVENANCES, r.provenance) ?? null,
    tags: [] as string[],
    depends_on: [] as number[],
    acceptance_criteria_count: 0,
    /** normalized: task_signals rows; legacy: task_comments rows. */
    signal_count: 0,
    ...cols(r, ['subsystem_display_name', 'subsystem_acronym', 'discipline_display_name'], str),
    ...cols(r, ['discipline_acronym', 'discipline_icon', 'discipline_color'], str),
  };
}
export type RalphTaskListItem = ReturnType<typeof listItemOf>;

const TASK_LIST_SQL = `SELECT t.id, f.name AS subsystem, d.name AS discipline, td.title, td.description, t.status,
  td.priority, t.provenance, f.display_name AS subsystem_display_name, f.acronym AS subsystem_acronym,
  d.display_name AS discipline_display_name, d.acronym AS discipline_acronym, d.icon AS discipline_icon,
  d.color AS discipline_color
  FROM runtime_tasks t
  JOIN task_details td ON t.details_id = td.id
  JOIN subsystems f ON t.subsystem_id = f.id
  JOIN disciplines d ON td.discipline_id = d.id
  ORDER BY t.id`;

/**
 * row_to_task_list_item: unlike every other task reader, it FAILS on an unparseable status, priority or
 * provenance, and the `?` in get_task_list_items turns one bad row into a failed list (the UI shows no
 * tasks at all). Note the inner JOINs: a task whose details/subsystem/discipline is missing is silently
 * absent instead.
 */
function parsedListRow(r: Row): Row {
  const parses = { status: RALPH_STATUSES, priority: RALPH_PRIORITIES, provenance: RALPH_PROVENANCES };
  for (const [col, set] of Object.entries(parses)) {
    const v = r[col];
    const allowed = oneOf(set, v) !== undefined || (v === null && col !== 'status');
    if (!allowed) throw new Error(`Invalid task ${col}: ${String(v)} (task ${num(r.id)})`);
  }
  return r;
}

function groupBy<V>(rows: Row[], value: (r: Row) => V): Map<number, V[]> {
  const map = new Map<number, V[]>();
  for (const r of rows) {
    const key = num(r.task_id);
    const list = map.get(key) ?? [];
    list.push(value(r));
    map.set(key, list);
  }
  return map;
}

function countBy(db: Db, sql: string): Map<number, number> {
  return new Map(all(db, sql).map((r) => [num(r.task_id), num(r.n)]));
}

function taskListNormalized(db: Db): RalphTaskListItem[] {
  const tasks = all(db, TASK_LIST_SQL).map((r) => listItemOf(parsedListRow(r)));
  // Ralph reads the four side tables whole, keyed by task id (same ORDER BYs).
  const tags = groupBy(all(db, 'SELECT task_id, tag FROM task_tags ORDER BY task_id, id'), (r) => r.tag as string);
  const deps = groupBy(all(db, 'SELECT task_id, depends_on_task_id FROM task_dependencies ORDER BY task_id, id'), (r) =>
    num(r.depends_on_task_id),
  );
  const criteria = countBy(db, 'SELECT task_id, COUNT(*) AS n FROM task_acceptance_criteria GROUP BY task_id');
  const signals = countBy(db, 'SELECT task_id, COUNT(*) AS n FROM task_signals GROUP BY task_id');
  for (const t of tasks) {
    t.tags = tags.get(t.id) ?? [];
    t.depends_on = deps.get(t.id) ?? [];
    t.acceptance_criteria_count = criteria.get(t.id) ?? 0;
    t.signal_count = signals.get(t.id) ?? 0;
  }
  return tasks;
}

/**
 * Legacy Ralph (936f316) has no list-item reader; its get_tasks is the equivalent. It never fails: an
 * unknown status reads as pending, an unknown priority/provenance as none, a missing feature/discipline
 * falls back to the raw name (LEFT JOIN + COALESCE).
 */
function taskListLegacy(db: Db): RalphTaskListItem[] {
  const rows = all(
    db,
    `SELECT t.id, t.feature AS subsystem, t.discipline, t.title, t.description, t.status, t.priority,
       t.provenance, t.tags, t.depends_on, t.acceptance_criteria,
       COALESCE(f.display_name, t.feature) AS subsystem_display_name,
       COALESCE(f.acronym, t.feature) AS subsystem_acronym,
       COALESCE(d.display_name, t.discipline) AS discipline_display_name,
       COALESCE(d.acronym, t.discipline) AS discipline_acronym,
       COALESCE(d.icon, 'Circle') AS discipline_icon, COALESCE(d.color, '#94a3b8') AS discipline_color,
       (SELECT COUNT(*) FROM task_comments c WHERE c.task_id = t.id) AS comments
     FROM tasks t
     LEFT JOIN features f ON t.feature = f.name
     LEFT JOIN disciplines d ON t.discipline = d.name
     ORDER BY t.id`,
  );
  return rows.map((r) => ({
    ...listItemOf(r),
    tags: stringList(r.tags),
    depends_on: idList(r.depends_on),
    acceptance_criteria_count: stringList(r.acceptance_criteria).length,
    signal_count: num(r.comments),
  }));
}

/** Throws (naming the value and task id) exactly when Ralph head's task list would fail to load. */
export function ralphTaskList(dbPath: string): RalphTaskListItem[] {
  return readAs(dbPath, taskListNormalized, taskListLegacy);
}

// ---------------------------------------------------------------------------------------------------------
// one task (Ralph head: get_task_by_id; legacy: 936f316 get_task_by_id)

/** Ralph's get_task_by_id query, plus t.template_id (which Ralph's Task type does not carry). */
const TASK_BY_ID_SQL = `SELECT t.id, t.subsystem_id, td.discipline_id, td.title, td.description, t.status,
  td.priority, t.created, t.updated, t.completed, td.hints, td.estimated_turns,
  t.provenance, td.agent, td.model, td.effort, td.thinking, td.pseudocode, t.enriched_at,
  f.name AS subsystem, f.display_name, f.acronym,
  d.name AS discipline, d.display_name AS d_display_name, d.acronym AS d_acronym, d.icon, d.color,
  t.template_id
  FROM runtime_tasks t
  JOIN task_details td ON t.details_id = td.id
  JOIN subsystems f ON t.subsystem_id = f.id
  JOIN disciplines d ON td.discipline_id = d.id
  WHERE t.id = ?`;

/** The task as both generations' row_to_task read it; the lists and the normalized-only fields come after. */
function taskOf(r: Row, feature: unknown) {
  return {
    id: num(r.id),
    title: r.title as string,
    description: text(r.description),
    /** As Ralph shows it: row_to_task maps an unknown status to pending (silently). */
    status: oneOf(RALPH_STATUSES, r.status) ?? 'pending',
    /** The stored value, for tests that need to see what row_to_task hid. */
    status_raw: r.status as string,
    /** Unknown values read as null (Priority::parse / TaskProvenance::parse, silently). */
    priority: oneOf(RALPH_PRIORITIES, r.priority) ?? null,
    hints: text(r.hints),
    estimated_turns: u32(r.estimated_turns),
    provenance: oneOf(RALPH_PROVENANCES, r.provenance) ?? null,
    ...cols(r, ['pseudocode', 'enriched_at', 'created', 'updated', 'completed'], text),
    feature: feature as string,
    discipline: r.discipline as string,
  };
}

function taskNormalized(db: Db, id: number) {
  const r = get(db, TASK_BY_ID_SQL, id);
  if (r === undefined) return undefined; // includes a task whose joins do not resolve: Ralph says "not found"
  const strings = (sql: string) => column(db, sql, id).filter((v): v is string => typeof v === 'string');
  return {
    ...taskOf(r, r.subsystem),
    tags: strings('SELECT tag FROM task_tags WHERE task_id = ? ORDER BY id'),
    depends_on: column(db, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = ? ORDER BY id', id).map(
      num,
    ),
    acceptance_criteria: strings(
      'SELECT criterion FROM task_acceptance_criteria WHERE task_id = ? ORDER BY criterion_order',
    ),
    context_files: strings('SELECT file_path FROM task_context_files WHERE task_id = ? ORDER BY id'),
    output_artifacts: strings('SELECT artifact_path FROM task_output_artifacts WHERE task_id = ? ORDER BY id'),
    /** normalized only (null on legacy), as are the four after it. */
    template_id: u32(r.template_id),
    ...cols(r, ['agent', 'model', 'effort'], text),
    thinking: bool(r.thinking),
  };
}
export type RalphTask = NonNullable<ReturnType<typeof taskNormalized>>;

function taskLegacy(db: Db, id: number): RalphTask | undefined {
  // 936f316 joins features/disciplines with LEFT JOIN (only for display names), so a task whose feature
  // or discipline is missing is still found: the plain row is all this view needs.
  const r = get(db, 'SELECT * FROM tasks WHERE id = ?', id);
  if (r === undefined) return undefined;
  return {
    ...taskOf(r, r.feature),
    tags: stringList(r.tags),
    depends_on: idList(r.depends_on),
    ...cols(r, ['acceptance_criteria', 'context_files', 'output_artifacts'], stringList),
    template_id: null,
    ...cols(r, ['agent', 'model', 'effort'], () => null),
    thinking: null,
  };
}

export function ralphTask(dbPath: string, id: number): RalphTask | undefined {
  return readAs(dbPath, taskNormalized, taskLegacy, id);
}

// ---------------------------------------------------------------------------------------------------------
// comments on a task (legacy task_comments; head task_signals via get_signals_for_task)

function commentsLegacy(db: Db, taskId: number) {
  // 936f316 get_comments_for_task, already oldest first.
  return all(
    db,
    'SELECT id, author, discipline, agent_task_id, priority, body, created FROM task_comments WHERE task_id = ? ORDER BY id',
    taskId,
  ).map((r) => ({
    generation: 'legacy' as const,
    id: num(r.id),
    ...cols(r, ['author', 'body'], str),
    ...cols(r, ['created', 'discipline', 'priority'], text),
    agent_task_id: u32(r.agent_task_id),
  }));
}

/**
 * Ralph's get_signals_for_task query, except ORDER BY tc.id ASC: Ralph lists newest first (DESC); tests
 * read more naturally oldest first, so this returns the same rows in the reverse order.
 */
const SIGNALS_SQL = `SELECT tc.id, COALESCE(s.started_by, 'system') AS author,
  COALESCE(tc.text, tc.summary, tc.reason, tc.question, tc.what, tc.remaining, '') AS body,
  tc.created, tc.session_id, tc.verb,
  tc.summary, tc.remaining, tc.reason, tc.question, tc.what, tc."on" AS "on",
  tc.blocking, tc.severity, tc.category, tc.kind, tc.scope,
  tc.preferred, tc.options, tc.rationale, tc.why, tc.detail, tc.text, tc.answer
  FROM task_signals tc
  LEFT JOIN agent_sessions s ON tc.session_id = s.id
  WHERE tc.task_id = ?
  ORDER BY tc.id ASC`;

/** Rust str::lines(): split on \n, drop a trailing \r per line, no final empty line. */
function rustLines(s: string): string[] {
  if (s === '') return [];
  const parts = s.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (s.endsWith('\n')) parts.pop();
  return parts;
}

function commentsNormalized(db: Db, taskId: number) {
  return all(db, SIGNALS_SQL, taskId).map((r) => ({
    generation: 'normalized' as const,
    id: num(r.id),
    ...cols(r, ['author', 'body'], str),
    ...cols(r, ['created', 'session_id', 'verb', 'summary', 'remaining', 'reason', 'question', 'what', 'on'], text),
    /** Ralph reads the 0/1 column as a bool. */
    blocking: bool(r.blocking),
    ...cols(r, ['severity', 'category', 'kind', 'scope', 'preferred'], text),
    /** Ralph splits the stored newline-joined text with str::lines(). */
    options: typeof r.options === 'string' ? rustLines(r.options) : null,
    ...cols(r, ['rationale', 'why', 'detail', 'text', 'answer'], text),
  }));
}

export type SignalComment = ReturnType<typeof commentsNormalized>[number];
export type RalphComment = ReturnType<typeof commentsLegacy>[number] | SignalComment;

/** Oldest first (ascending id) in both generations. */
export function ralphComments(dbPath: string, taskId: number): RalphComment[] {
  return readAs<[number], RalphComment[]>(dbPath, commentsNormalized, commentsLegacy, taskId);
}

// ---------------------------------------------------------------------------------------------------------
// a feature/subsystem and a discipline

/**
 * A learning as both generations read it; fields one generation lacks are null there: id (the
 * subsystem_comments row) and discipline (its name) are normalized only; source (auto/agent/human/
 * opus_reviewed), hit_count and reviewed legacy only. `body` is `text` again (the normalized column name);
 * task_id is legacy `task_id` / normalized `agent_task_id`, iteration legacy `iteration` / `source_iteration`.
 */
interface RalphLearning {
  id: number | null;
  text: string;
  body: string;
  reason: string | null;
  summary: string | null;
  created: string | null;
  updated: string | null;
  task_id: number | null;
  iteration: number | null;
  discipline: string | null;
  source: string | null;
  hit_count: number | null;
  reviewed: boolean | null;
}

const LEARNING_SOURCES = ['agent', 'human', 'opus_reviewed'] as const;

/**
 * FeatureLearning's hand-written Deserialize (936f316 ralph-rag/src/learning.rs): a string, or an object
 * with a string `text`; anything else is an error, and as the column is read with unwrap_or_default, one
 * such element makes Ralph see NO learnings at all for that feature.
 */
function legacyLearning(v: unknown): RalphLearning | undefined {
  const none = {
    id: null,
    reason: null,
    summary: null,
    created: null,
    updated: null,
    task_id: null,
    iteration: null,
    discipline: null,
  };
  if (typeof v === 'string') return { ...none, text: v, body: v, source: 'auto', hit_count: 1, reviewed: false };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.text !== 'string') return undefined;
  return {
    ...none,
    text: o.text,
    body: o.text,
    reason: asString(o.reason) ?? null,
    // Ralph defaults a missing created to '' (String::new()); null says the same more plainly.
    created: asString(o.created) || null,
    task_id: u32(o.task_id),
    iteration: u32(o.iteration),
    source: oneOf(LEARNING_SOURCES, o.source) ?? 'auto',
    hit_count: u32(o.hit_count) ?? 1,
    reviewed: typeof o.reviewed === 'boolean' ? o.reviewed : false,
  };
}

/** The feature/subsystem as both generations read it; the lists and learnings come after. */
function featureOf(r: Row, status: string | null) {
  return {
    ...cols(r, ['name', 'display_name', 'acronym'], str),
    ...cols(r, ['description', 'architecture', 'boundaries'], text),
    /** normalized only (active/archived). */
    status,
    created: text(r.created),
  };
}

function featureLegacy(db: Db, name: string) {
  // features.name is a plain (BINARY) primary key: legacy lookups are case-sensitive.
  const r = get(db, 'SELECT * FROM features WHERE name = ?', name);
  if (r === undefined) return undefined;
  return {
    ...featureOf(r, null),
    /** `dependencies` names the features this one depends on. */
    ...cols(r, ['knowledge_paths', 'context_files', 'dependencies'], stringList),
    learnings: serdeList(r.learnings, legacyLearning),
  };
}
export type RalphFeature = NonNullable<ReturnType<typeof featureLegacy>>;

function featureNormalized(db: Db, name: string): RalphFeature | undefined {
  // subsystems.name is COLLATE NOCASE, so `=` matches case-insensitively, as in Ralph's own lookups.
  const r = get(db, 'SELECT * FROM subsystems WHERE name = ?', name);
  if (r === undefined) return undefined;
  const id = num(r.id);
  const strings = (sql: string) => column(db, sql, id).map(String);
  // Oldest first (Ralph's get_all_comments_by_subsystem orders by id DESC).
  const learnings = all(
    db,
    `SELECT c.id, c.body, c.summary, c.reason, c.created, c.updated, c.agent_task_id, c.source_iteration, d.name AS discipline
     FROM subsystem_comments c LEFT JOIN disciplines d ON c.discipline_id = d.id
     WHERE c.subsystem_id = ? AND c.category = 'learning' ORDER BY c.id`,
    id,
  ).map(
    (c): RalphLearning => ({
      id: num(c.id),
      text: c.body as string,
      body: c.body as string,
      ...cols(c, ['reason', 'summary', 'created', 'updated'], text),
      task_id: u32(c.agent_task_id),
      iteration: u32(c.source_iteration),
      discipline: text(c.discipline),
      ...cols(c, ['source', 'hit_count', 'reviewed'], () => null),
    }),
  );
  return {
    ...featureOf(r, text(r.status)),
    // Ralph head never reads these three tables; we read them in insertion (id) order.
    knowledge_paths: strings('SELECT path FROM subsystem_knowledge_paths WHERE subsystem_id = ? ORDER BY id'),
    context_files: strings('SELECT file_path FROM subsystem_context_files WHERE subsystem_id = ? ORDER BY id'),
    dependencies: strings(
      `SELECT s.name FROM subsystem_dependencies sd JOIN subsystems s ON s.id = sd.depends_on_subsystem_id
       WHERE sd.subsystem_id = ? ORDER BY sd.id`,
    ),
    learnings,
  };
}

/** Case-insensitive on normalized databases (NOCASE column), exact on legacy ones. */
export function ralphFeature(dbPath: string, name: string): RalphFeature | undefined {
  return readAs(dbPath, featureNormalized, featureLegacy, name);
}

type McpServer = { name: string; command: string; args: string[]; env: Record<string, string> };

/** serde for McpServerConfig: name and command required, args/env default to empty when absent. */
function legacyMcpServer(v: unknown): McpServer | undefined {
  const isObject = (x: unknown): x is Row => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isObject(v) || typeof v.name !== 'string' || typeof v.command !== 'string') return undefined;
  const { args = [], env = {} } = v;
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) return undefined;
  if (!isObject(env) || !Object.values(env).every((x) => typeof x === 'string')) return undefined;
  return { name: v.name, command: v.command, args, env: env as Record<string, string> };
}

function mcpServersNormalized(db: Db, disciplineId: number): McpServer[] {
  // helpers.rs read_mcp_servers: servers by id, args by arg_order (id breaks ties here), env as a map.
  const servers = all(
    db,
    'SELECT id, name, command FROM discipline_mcp_servers WHERE discipline_id = ? ORDER BY id',
    disciplineId,
  );
  return servers.map((s) => {
    const sid = num(s.id);
    const args = column(
      db,
      'SELECT arg FROM discipline_mcp_server_args WHERE server_id = ? ORDER BY arg_order, id',
      sid,
    );
    const env: Record<string, string> = {};
    for (const e of all(db, 'SELECT key, value FROM discipline_mcp_server_env WHERE server_id = ? ORDER BY id', sid)) {
      env[e.key as string] = e.value as string;
    }
    return { name: s.name as string, command: s.command as string, args: args.map(String), env };
  });
}

/** Case-insensitive on normalized databases (NOCASE column), exact on legacy ones. */
export function ralphDiscipline(dbPath: string, name: string) {
  return withDb(dbPath, (db) => {
    const normalized = generationOfDb(db) === 'normalized';
    const r = get(db, 'SELECT * FROM disciplines WHERE name = ?', name);
    if (r === undefined) return undefined;
    const id = num(r.id); // normalized only
    return {
      ...cols(r, ['name', 'display_name', 'acronym', 'icon', 'color'], str),
      ...cols(r, ['description', 'system_prompt', 'conventions'], text),
      skills: normalized
        ? column(db, 'SELECT skill FROM discipline_skills WHERE discipline_id = ? ORDER BY id', id).map(String)
        : stringList(r.skills),
      mcp_servers: normalized ? mcpServersNormalized(db, id) : serdeList(r.mcp_servers, legacyMcpServer),
      // agent, model, effort and thinking are normalized only (null on legacy).
      ...cols(r, ['agent', 'model', 'effort'], normalized ? text : () => null),
      thinking: normalized ? bool(r.thinking) : null,
    };
  });
}

// ---------------------------------------------------------------------------------------------------------
// invariants: each a named check (the comment above it says what Ralph relies on) returning
// human-readable violations, prefixed `[name] `

type Check = (db: Db) => string[];

/**
 * PRAGMA integrity_check on a READ-ONLY connection skips CHECK constraints (SQLite 3.53, verified), and
 * the CHECKs are half of Ralph's rules (done ⇒ completed, the signal verb shapes, every enum). So the check
 * runs on a writable in-memory copy: serialize, mark the image as rollback-journal (bytes 18/19 = 1; an
 * in-memory database cannot be opened in WAL mode), deserialize. The file itself is never opened for write.
 */
function integrityCheck(db: Db): string[] {
  const image = Buffer.from(db.serialize());
  image[18] = 1;
  image[19] = 1;
  const copy = new Database(image);
  try {
    const msgs = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    return msgs.length === 1 && msgs[0] === 'ok' ? [] : msgs;
  } finally {
    copy.close();
  }
}

function foreignKeyCheck(db: Db): string[] {
  db.pragma('foreign_keys = ON'); // Ralph opens every connection with foreign_keys = ON
  const rows = db.pragma('foreign_key_check') as Row[];
  return rows.map((r) => `${r.table} rowid ${String(r.rowid)} has no parent row in ${r.parent} (fk #${r.fkid})`);
}

/** A check whose every row is one violation, worded by `describe`. */
const rowsOf =
  (sql: string, describe: (r: Row) => string): Check =>
  (db) =>
    all(db, sql).map(describe);

/** For each "table.col": a check of the table's rows, keyed by `key`. */
const perColumn =
  (columns: string[], check: (table: string, col: string) => Check): Check =>
  (db) =>
    columns.flatMap((tc) => {
      const [table, col] = tc.split('.') as [string, string];
      return check(table, col)(db);
    });

/** Values outside `allowed` (NULL is allowed). */
const valuesOutside = (columns: string[], allowed: readonly (string | number)[]) =>
  perColumn(columns, (table, col) => {
    const list = allowed.map((v) => (typeof v === 'number' ? String(v) : `'${v}'`)).join(', ');
    return rowsOf(
      `SELECT id AS k, "${col}" AS v FROM ${table} WHERE "${col}" IS NOT NULL AND "${col}" NOT IN (${list})`,
      (r) => `${table}.${col} = ${JSON.stringify(r.v)} (${table} id ${String(r.k)}) is not one of ${allowed.join('/')}`,
    );
  });

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const CLOCK = /([01]\d|2[0-3]):[0-5]\d:[0-5]\d/.source;
const DATE_TIME_SPACE = new RegExp(`^${DATE.source.slice(1, -1)} ${CLOCK}$`);
const RFC3339_UTC = new RegExp(`^${DATE.source.slice(1, -1)}T${CLOCK}(\\.\\d+)?Z$`);

/** Values that are not strings one of `ok` matches (or NULL, when `nullable`). */
const formatViolations = (columns: string[], { ok, nullable, expected }: Format, key = 'id') =>
  perColumn(
    columns,
    (table, col) => (db) =>
      all(db, `SELECT ${key} AS k, "${col}" AS v FROM ${table}`)
        .filter(
          (r) => !(r.v === null && nullable) && !(typeof r.v === 'string' && ok.some((re) => re.test(r.v as string))),
        )
        .map((r) => `${table}.${col} = ${JSON.stringify(r.v)} (${table} ${key} ${String(r.k)}) is not ${expected}`),
  );

function dependencyCycles(db: Db): string[] {
  const edges = groupBy(all(db, 'SELECT task_id, depends_on_task_id FROM task_dependencies'), (r) =>
    num(r.depends_on_task_id),
  );
  return cyclesIn(edges).map((c) => `dependency cycle: ${c.join(' -> ')}`);
}

/** Every cycle's entry point found by an iterative DFS (one report per cycle start). */
function cyclesIn(edges: Map<number, number[]>): number[][] {
  const state = new Map<number, 'open' | 'done'>();
  const found: number[][] = [];
  const visit = (start: number) => {
    const stack: { node: number; next: number }[] = [{ node: start, next: 0 }];
    const path: number[] = [start];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = edges.get(top.node) ?? [];
      if (top.next >= targets.length) {
        state.set(top.node, 'done');
        stack.pop();
        path.pop();
        continue;
      }
      const to = targets[top.next++]!;
      const s = state.get(to);
      if (s === 'open') found.push([...path.slice(path.indexOf(to)), to]);
      if (s !== undefined) continue;
      state.set(to, 'open');
      stack.push({ node: to, next: 0 });
      path.push(to);
    }
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return found;
}

const doneWithoutCompleted = (table: string) =>
  rowsOf(
    `SELECT id FROM ${table} WHERE status = 'done' AND completed IS NULL`,
    (r) => `task ${String(r.id)} is done but completed is NULL`,
  );

type Format = { ok: RegExp[]; nullable: boolean; expected: string };
const ACRONYM: Format = { ok: [/^[A-Z0-9]{4}$/], nullable: false, expected: '4 of [A-Z0-9]' };
const DAY: Format = { ok: [DATE], nullable: true, expected: 'YYYY-MM-DD' };
const RFC3339: Format = { ok: [RFC3339_UTC], nullable: false, expected: 'RFC 3339 UTC' };
const UPDATED: Format = {
  ok: [DATE, DATE_TIME_SPACE],
  nullable: true,
  expected: "NULL, YYYY-MM-DD or 'YYYY-MM-DD HH:MM:SS'",
};

const NORMALIZED: Record<string, Check> = {
  // PRAGMA integrity_check is ok (incl. every CHECK constraint)
  integrity_check: integrityCheck,
  // PRAGMA foreign_key_check is empty
  foreign_key_check: foreignKeyCheck,
  // runtime_tasks.status is one of TaskStatus (needs_input/failed pass the CHECK but break Ralph)
  task_status_known: valuesOutside(['runtime_tasks.status'], RALPH_STATUSES),
  // status 'done' implies completed is set
  done_has_completed: doneWithoutCompleted('runtime_tasks'),
  // every runtime task joins its task_details, subsystem and the details' discipline (else Ralph hides it)
  task_joins_resolve: (db) => [
    ...rowsOf(
      'SELECT t.id, t.details_id AS x FROM runtime_tasks t LEFT JOIN task_details td ON td.id = t.details_id WHERE td.id IS NULL',
      (r) => `task ${String(r.id)}: task_details ${String(r.x)} missing`,
    )(db),
    ...rowsOf(
      'SELECT t.id, t.subsystem_id AS x FROM runtime_tasks t LEFT JOIN subsystems f ON f.id = t.subsystem_id WHERE f.id IS NULL',
      (r) => `task ${String(r.id)}: subsystem ${String(r.x)} missing`,
    )(db),
    ...rowsOf(
      `SELECT t.id, td.discipline_id AS x FROM runtime_tasks t JOIN task_details td ON td.id = t.details_id
       LEFT JOIN disciplines d ON d.id = td.discipline_id WHERE d.id IS NULL`,
      (r) => `task ${String(r.id)}: discipline ${String(r.x)} missing`,
    )(db),
  ],
  // per task, criterion_order is exactly 0..n-1 (Ralph orders by it and rewrites it that way)
  criterion_order_contiguous: rowsOf(
    `SELECT task_id, group_concat(criterion_order) AS orders FROM
       (SELECT task_id, criterion_order FROM task_acceptance_criteria ORDER BY task_id, criterion_order)
     GROUP BY task_id
     HAVING COUNT(*) != COUNT(DISTINCT criterion_order) OR MIN(criterion_order) != 0 OR MAX(criterion_order) != COUNT(*) - 1`,
    (r) => `task ${String(r.task_id)}: criterion_order is [${String(r.orders)}], not 0..n-1`,
  ),
  // every task_signals.session_id has an agent_sessions row
  signal_session_exists: rowsOf(
    'SELECT s.id, s.session_id FROM task_signals s LEFT JOIN agent_sessions a ON a.id = s.session_id WHERE a.id IS NULL',
    (r) => `signal ${String(r.id)}: agent session ${JSON.stringify(r.session_id)} missing`,
  ),
  priority_known: valuesOutside(['task_details.priority'], RALPH_PRIORITIES),
  provenance_known: valuesOutside(['runtime_tasks.provenance'], RALPH_PROVENANCES),
  agent_known: valuesOutside(['task_details.agent', 'disciplines.agent'], RALPH_AGENTS),
  effort_known: valuesOutside(['task_details.effort', 'disciplines.effort'], RALPH_EFFORTS),
  thinking_known: valuesOutside(['task_details.thinking', 'disciplines.thinking'], [0, 1]),
  // subsystem and discipline acronyms are exactly 4 of [A-Z0-9] (acronym.rs)
  acronym_format: formatViolations(['subsystems.acronym', 'disciplines.acronym'], ACRONYM),
  // task, template and subsystem created (and task completed/enriched_at) are YYYY-MM-DD or NULL
  task_dates: formatViolations(
    [
      'runtime_tasks.created',
      'runtime_tasks.completed',
      'runtime_tasks.enriched_at',
      'task_details.created',
      'task_templates.created',
      'subsystems.created',
    ],
    DAY,
  ),
  // signal, signal-comment, session and subsystem-comment times are RFC 3339 UTC (YYYY-MM-DDTHH:MM:SS[.f]Z)
  rfc3339_timestamps: (db) => [
    // The column DEFAULT datetime('now') would write 'YYYY-MM-DD HH:MM:SS' here: Ralph never relies on it.
    ...formatViolations(
      ['task_signals.created', 'task_signal_comments.created', 'agent_sessions.started'],
      RFC3339,
    )(db),
    // Ralph reads a subsystem comment's created as Option<String>: NULL is fine (an undated legacy learning).
    ...formatViolations(['agent_sessions.ended', 'subsystem_comments.created', 'subsystem_comments.updated'], {
      ...RFC3339,
      nullable: true,
    })(db),
  ],
  // runtime_tasks/task_details/task_templates updated is NULL, YYYY-MM-DD (Ralph) or 'YYYY-MM-DD HH:MM:SS' (the triggers)
  updated_format: formatViolations(
    ['runtime_tasks.updated', 'task_details.updated', 'task_templates.updated'],
    UPDATED,
  ),
  // task titles, subsystem/discipline names and display names, comment bodies are not blank (Ralph refuses blank ones)
  required_text_nonblank: (db) => [
    ...perColumn(
      [
        'task_details.title',
        'subsystems.name',
        'subsystems.display_name',
        'disciplines.name',
        'disciplines.display_name',
        'subsystem_comments.body',
      ],
      (table, col) =>
        rowsOf(
          `SELECT id, "${col}" AS v FROM ${table} WHERE trim("${col}") = ''`,
          (r) => `${table}.${col} is blank (${table} id ${String(r.id)})`,
        ),
    )(db),
    ...rowsOf(
      `SELECT id FROM task_signals WHERE trim(COALESCE(text, summary, reason, question, what, "on", '')) = ''`,
      (r) => `task_signals ${String(r.id)} has a blank required field`,
    )(db),
  ],
  // task_dependencies has no cycle (Ralph refuses to create one on update)
  dependencies_acyclic: dependencyCycles,
  // Ralph's get_task_list_items does not fail
  task_list_loads: (db) => {
    try {
      taskListNormalized(db);
      return [];
    } catch (e) {
      return [`task list fails to load: ${(e as Error).message}`];
    }
  },
};

/** JSON-array TEXT columns of the legacy schema. NULL in a features/disciplines list drops the WHOLE row. */
const LEGACY_LISTS = [
  { table: 'tasks', key: 'id', col: 'tags', nullDropsRow: false, item: asString },
  { table: 'tasks', key: 'id', col: 'depends_on', nullDropsRow: false, item: asU32 },
  { table: 'tasks', key: 'id', col: 'acceptance_criteria', nullDropsRow: false, item: asString },
  { table: 'tasks', key: 'id', col: 'context_files', nullDropsRow: false, item: asString },
  { table: 'tasks', key: 'id', col: 'output_artifacts', nullDropsRow: false, item: asString },
  { table: 'features', key: 'name', col: 'knowledge_paths', nullDropsRow: true, item: asString },
  { table: 'features', key: 'name', col: 'context_files', nullDropsRow: true, item: asString },
  { table: 'features', key: 'name', col: 'learnings', nullDropsRow: true, item: legacyLearning },
  { table: 'features', key: 'name', col: 'dependencies', nullDropsRow: true, item: asString },
  { table: 'disciplines', key: 'name', col: 'skills', nullDropsRow: true, item: asString },
  { table: 'disciplines', key: 'name', col: 'mcp_servers', nullDropsRow: true, item: legacyMcpServer },
];

/** Every legacy list cell, parsed, with where a violation says it is. */
const legacyListCells = (db: Db) =>
  LEGACY_LISTS.flatMap((l) =>
    all(db, `SELECT ${l.key} AS k, ${l.col} AS v FROM ${l.table}`).map((r) => ({
      ...l,
      raw: r.v,
      parsed: parseJson(r.v),
      where: `${l.table}.${l.col} of ${String(r.k)}`,
    })),
  );

const LEGACY: Record<string, Check> = {
  integrity_check: integrityCheck,
  foreign_key_check: foreignKeyCheck,
  // tasks.status is one of TaskStatus (936f316 shows anything else as pending)
  task_status_known: valuesOutside(['tasks.status'], RALPH_STATUSES),
  // status 'done' implies completed is set (no CHECK in the legacy schema)
  done_has_completed: doneWithoutCompleted('tasks'),
  priority_known: valuesOutside(['tasks.priority'], RALPH_PRIORITIES),
  provenance_known: valuesOutside(['tasks.provenance'], RALPH_PROVENANCES),
  // feature and discipline acronyms are exactly 4 of [A-Z0-9]
  acronym_format: formatViolations(['features.acronym', 'disciplines.acronym'], ACRONYM, 'name'),
  // every JSON list column holds a JSON array (936f316 reads tasks' NULL lists as '[]', but features and
  // disciplines rows with a NULL list vanish)
  legacy_json_arrays: (db) =>
    legacyListCells(db)
      .filter((c) => !(c.raw === null && !c.nullDropsRow) && !Array.isArray(c.parsed))
      .map((c) => `${c.where} is not a JSON array: ${JSON.stringify(c.raw)}`),
  // every JSON list element has the type Ralph deserializes (serde fails the whole Vec on one bad element,
  // so Ralph sees an empty list); a cell that is no array at all is legacy_json_arrays' to report
  legacy_json_items: (db) =>
    legacyListCells(db).flatMap(({ parsed, item, where }) => {
      const bad = Array.isArray(parsed) ? parsed.findIndex((x) => item(x) === undefined) : -1;
      return bad < 0
        ? []
        : [`${where}: element ${bad} ${JSON.stringify((parsed as unknown[])[bad])} is unreadable (Ralph sees [])`];
    }),
  // tasks.depends_on names existing task ids
  depends_on_exists: (db) => {
    const ids = new Set(all(db, 'SELECT id FROM tasks').map((r) => num(r.id)));
    return all(db, 'SELECT id, depends_on FROM tasks ORDER BY id').flatMap((r) =>
      idList(r.depends_on)
        .filter((dep) => !ids.has(dep))
        .map((dep) => `task ${String(r.id)} depends on missing task ${dep}`),
    );
  },
};

export const NORMALIZED_INVARIANT_NAMES: readonly string[] = Object.keys(NORMALIZED);
export const LEGACY_INVARIANT_NAMES: readonly string[] = Object.keys(LEGACY);

/** Runs every check even if an earlier one failed; a check that throws is itself a violation. */
function invariantsOf(dbPath: string, generation: Generation, described: string): string[] {
  return withDb(dbPath, (db) => {
    if (generationOfDb(db) !== generation) throw new Error(`${dbPath} is not a ${described} Ralph database`);
    return Object.entries(generation === 'normalized' ? NORMALIZED : LEGACY).flatMap(([name, check]) => {
      try {
        return check(db).map((v) => `[${name}] ${v}`);
      } catch (e) {
        return [`[${name}] check threw: ${(e as Error).message}`];
      }
    });
  });
}

/** Violations of the rules Ralph head's code relies on; each string starts with `[rule_name] `. */
export const normalizedInvariants = (dbPath: string): string[] =>
  invariantsOf(dbPath, 'normalized', 'normalized (head)');

/** Violations of the rules legacy Ralph (936f316) relies on; each string starts with `[rule_name] `. */
export const legacyInvariants = (dbPath: string): string[] => invariantsOf(dbPath, 'legacy', 'legacy');

// ---------------------------------------------------------------------------------------------------------
// counts (comments: legacy task_comments / normalized task_signals rows; learnings: legacy
// features.learnings elements as Ralph parses them / normalized subsystem_comments of category 'learning')

export function counts(dbPath: string) {
  return withDb(dbPath, (db) => {
    const count = (table: string, where = '') =>
      num(db.prepare(`SELECT COUNT(*) FROM ${table} ${where}`).pluck().get());
    if (generationOfDb(db) === 'normalized') {
      return {
        tasks: count('runtime_tasks'),
        dependencies: count('task_dependencies'),
        criteria: count('task_acceptance_criteria'),
        comments: count('task_signals'),
        learnings: count('subsystem_comments', "WHERE category = 'learning'"),
        features: count('subsystems'),
        disciplines: count('disciplines'),
        tags: count('task_tags'),
        context_files: count('task_context_files'),
        output_artifacts: count('task_output_artifacts'),
      };
    }
    // What Ralph would parse out of each JSON column (an unreadable list counts as empty).
    const sum = (table: string, col: string, parse: (json: unknown) => unknown[]) => {
      const cells = db.prepare(`SELECT ${col} FROM ${table}`).pluck().all();
      return cells.reduce<number>((n, json) => n + parse(json).length, 0);
    };
    return {
      tasks: count('tasks'),
      dependencies: sum('tasks', 'depends_on', idList),
      criteria: sum('tasks', 'acceptance_criteria', stringList),
      comments: count('task_comments'),
      learnings: sum('features', 'learnings', (json) => serdeList(json, legacyLearning)),
      features: count('features'),
      disciplines: count('disciplines'),
      tags: sum('tasks', 'tags', stringList),
      context_files: sum('tasks', 'context_files', stringList),
      output_artifacts: sum('tasks', 'output_artifacts', stringList),
    };
  });
}
