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
export type RalphStatus = (typeof RALPH_STATUSES)[number];
/** Priority::parse (case-sensitive). */
export const RALPH_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
/** TaskProvenance::parse (case-sensitive). */
export const RALPH_PROVENANCES = ['agent', 'human', 'system'] as const;
/** The CHECK sets on task_details/disciplines agent, effort, thinking. */
export const RALPH_AGENTS = ['claude', 'codex'] as const;
export const RALPH_EFFORTS = ['low', 'medium', 'high'] as const;

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

function all(db: Db, sql: string, ...params: unknown[]): Row[] {
  return db.prepare(sql).all(...params) as Row[];
}

function get(db: Db, sql: string, ...params: unknown[]): Row | undefined {
  return db.prepare(sql).get(...params) as Row | undefined;
}

function hasTable(db: Db, name: string): boolean {
  return get(db, "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?", name) !== undefined;
}

/** rusqlite `Option<String>` read with `.ok()`: anything that is not TEXT reads as None. */
function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** rusqlite u32 read with `.ok()`: out-of-range or non-integer values read as None. */
function u32(v: unknown): number | null {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff ? n : null;
}

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

function oneOf<T extends string>(set: readonly T[], v: unknown): T | undefined {
  return typeof v === 'string' && (set as readonly string[]).includes(v) ? (v as T) : undefined;
}

function generationOfDb(db: Db): Generation {
  // Both generations report user_version 1, so only the tables can tell them apart.
  if (hasTable(db, 'runtime_tasks')) return 'normalized';
  if (hasTable(db, 'tasks')) return 'legacy';
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
  const out: T[] = [];
  for (const v of parsed) {
    const x = item(v);
    if (x === undefined) return [];
    out.push(x);
  }
  return out;
}

const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const asU32 = (v: unknown): number | undefined => u32(v) ?? undefined;
const stringList = (json: unknown): string[] => serdeList(json, asString);
const idList = (json: unknown): number[] => serdeList(json, asU32);

// ---------------------------------------------------------------------------------------------------------
// 2. the task list (Ralph head: SqliteDb::get_task_list_items)

export interface RalphTaskListItem {
  id: number;
  subsystem: string;
  discipline: string;
  title: string;
  description: string | null;
  status: RalphStatus;
  priority: string | null;
  provenance: string | null;
  tags: string[];
  depends_on: number[];
  acceptance_criteria_count: number;
  /** normalized: task_signals rows; legacy: task_comments rows. */
  signal_count: number;
  subsystem_display_name: string;
  subsystem_acronym: string;
  discipline_display_name: string;
  discipline_acronym: string;
  discipline_icon: string;
  discipline_color: string;
}

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
function listItemOf(r: Row): RalphTaskListItem {
  const id = num(r.id);
  const status = oneOf(RALPH_STATUSES, r.status);
  if (status === undefined) throw new Error(`Invalid task status: ${String(r.status)} (task ${id})`);
  if (r.priority !== null && oneOf(RALPH_PRIORITIES, r.priority) === undefined) {
    throw new Error(`Invalid task priority: ${String(r.priority)} (task ${id})`);
  }
  if (r.provenance !== null && oneOf(RALPH_PROVENANCES, r.provenance) === undefined) {
    throw new Error(`Invalid task provenance: ${String(r.provenance)} (task ${id})`);
  }
  return {
    id,
    subsystem: r.subsystem as string,
    discipline: r.discipline as string,
    title: r.title as string,
    description: text(r.description),
    status,
    priority: text(r.priority),
    provenance: text(r.provenance),
    tags: [],
    depends_on: [],
    acceptance_criteria_count: 0,
    signal_count: 0,
    subsystem_display_name: r.subsystem_display_name as string,
    subsystem_acronym: r.subsystem_acronym as string,
    discipline_display_name: r.discipline_display_name as string,
    discipline_acronym: r.discipline_acronym as string,
    discipline_icon: r.discipline_icon as string,
    discipline_color: r.discipline_color as string,
  };
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
  const tasks = all(db, TASK_LIST_SQL).map(listItemOf);
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
    `SELECT t.id, t.feature, t.discipline, t.title, t.description, t.status, t.priority, t.provenance,
       t.tags, t.depends_on, t.acceptance_criteria,
       COALESCE(f.display_name, t.feature) AS fdn, COALESCE(f.acronym, t.feature) AS fac,
       COALESCE(d.display_name, t.discipline) AS ddn, COALESCE(d.acronym, t.discipline) AS dac,
       COALESCE(d.icon, 'Circle') AS icon, COALESCE(d.color, '#94a3b8') AS color,
       (SELECT COUNT(*) FROM task_comments c WHERE c.task_id = t.id) AS comments
     FROM tasks t
     LEFT JOIN features f ON t.feature = f.name
     LEFT JOIN disciplines d ON t.discipline = d.name
     ORDER BY t.id`,
  );
  return rows.map((r) => ({
    id: num(r.id),
    subsystem: r.feature as string,
    discipline: r.discipline as string,
    title: r.title as string,
    description: text(r.description),
    status: oneOf(RALPH_STATUSES, r.status) ?? 'pending',
    priority: oneOf(RALPH_PRIORITIES, r.priority) ?? null,
    provenance: oneOf(RALPH_PROVENANCES, r.provenance) ?? null,
    tags: stringList(r.tags),
    depends_on: idList(r.depends_on),
    acceptance_criteria_count: stringList(r.acceptance_criteria).length,
    signal_count: num(r.comments),
    subsystem_display_name: r.fdn as string,
    subsystem_acronym: r.fac as string,
    discipline_display_name: r.ddn as string,
    discipline_acronym: r.dac as string,
    discipline_icon: r.icon as string,
    discipline_color: r.color as string,
  }));
}

/** Throws (naming the value and task id) exactly when Ralph head's task list would fail to load. */
export function ralphTaskList(dbPath: string): RalphTaskListItem[] {
  return withDb(dbPath, (db) => (generationOfDb(db) === 'normalized' ? taskListNormalized(db) : taskListLegacy(db)));
}

// ---------------------------------------------------------------------------------------------------------
// 3. one task (Ralph head: get_task_by_id; legacy: 936f316 get_task_by_id)

export interface RalphTask {
  id: number;
  title: string;
  description: string | null;
  /** As Ralph shows it: row_to_task maps an unknown status to pending (silently). */
  status: RalphStatus;
  /** The stored value, for tests that need to see what row_to_task hid. */
  status_raw: string;
  /** Unknown values read as null (Priority::parse / TaskProvenance::parse, silently). */
  priority: string | null;
  feature: string;
  discipline: string;
  tags: string[];
  depends_on: number[];
  acceptance_criteria: string[];
  context_files: string[];
  output_artifacts: string[];
  hints: string | null;
  estimated_turns: number | null;
  provenance: string | null;
  pseudocode: string | null;
  enriched_at: string | null;
  created: string | null;
  updated: string | null;
  completed: string | null;
  /** normalized only (null on legacy). */
  template_id: number | null;
  agent: string | null;
  model: string | null;
  effort: string | null;
  thinking: boolean | null;
}

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

function column(db: Db, sql: string, id: number): unknown[] {
  return db.prepare(sql).pluck().all(id);
}

function taskNormalized(db: Db, id: number): RalphTask | undefined {
  const r = get(db, TASK_BY_ID_SQL, id);
  if (r === undefined) return undefined; // includes a task whose joins do not resolve: Ralph says "not found"
  const strings = (sql: string) => column(db, sql, id).filter((v): v is string => typeof v === 'string');
  return {
    ...commonTaskFields(r),
    feature: r.subsystem as string,
    discipline: r.discipline as string,
    tags: strings('SELECT tag FROM task_tags WHERE task_id = ? ORDER BY id'),
    depends_on: column(db, 'SELECT depends_on_task_id FROM task_dependencies WHERE task_id = ? ORDER BY id', id).map(
      num,
    ),
    acceptance_criteria: strings(
      'SELECT criterion FROM task_acceptance_criteria WHERE task_id = ? ORDER BY criterion_order',
    ),
    context_files: strings('SELECT file_path FROM task_context_files WHERE task_id = ? ORDER BY id'),
    output_artifacts: strings('SELECT artifact_path FROM task_output_artifacts WHERE task_id = ? ORDER BY id'),
    template_id: u32(r.template_id),
    agent: text(r.agent),
    model: text(r.model),
    effort: text(r.effort),
    thinking: typeof r.thinking === 'number' ? r.thinking !== 0 : null,
  };
}

/** The scalar fields both generations' row_to_task read the same way. */
function commonTaskFields(r: Row) {
  return {
    id: num(r.id),
    title: r.title as string,
    description: text(r.description),
    status: oneOf(RALPH_STATUSES, r.status) ?? 'pending',
    status_raw: r.status as string,
    priority: oneOf(RALPH_PRIORITIES, r.priority) ?? null,
    hints: text(r.hints),
    estimated_turns: u32(r.estimated_turns),
    provenance: oneOf(RALPH_PROVENANCES, r.provenance) ?? null,
    pseudocode: text(r.pseudocode),
    enriched_at: text(r.enriched_at),
    created: text(r.created),
    updated: text(r.updated),
    completed: text(r.completed),
  };
}

function taskLegacy(db: Db, id: number): RalphTask | undefined {
  // 936f316 joins features/disciplines with LEFT JOIN (only for display names), so a task whose feature
  // or discipline is missing is still found: the plain row is all this view needs.
  const r = get(db, 'SELECT * FROM tasks WHERE id = ?', id);
  if (r === undefined) return undefined;
  return {
    ...commonTaskFields(r),
    feature: r.feature as string,
    discipline: r.discipline as string,
    tags: stringList(r.tags),
    depends_on: idList(r.depends_on),
    acceptance_criteria: stringList(r.acceptance_criteria),
    context_files: stringList(r.context_files),
    output_artifacts: stringList(r.output_artifacts),
    template_id: null,
    agent: null,
    model: null,
    effort: null,
    thinking: null,
  };
}

export function ralphTask(dbPath: string, id: number): RalphTask | undefined {
  return withDb(dbPath, (db) => (generationOfDb(db) === 'normalized' ? taskNormalized(db, id) : taskLegacy(db, id)));
}

// ---------------------------------------------------------------------------------------------------------
// 4. comments on a task (legacy task_comments; head task_signals via get_signals_for_task)

interface CommentBase {
  id: number;
  author: string;
  body: string;
  created: string | null;
}

export interface LegacyComment extends CommentBase {
  generation: 'legacy';
  discipline: string | null;
  priority: string | null;
  agent_task_id: number | null;
}

export interface SignalComment extends CommentBase {
  generation: 'normalized';
  session_id: string | null;
  verb: string | null;
  summary: string | null;
  remaining: string | null;
  reason: string | null;
  question: string | null;
  what: string | null;
  on: string | null;
  /** Ralph reads the 0/1 column as a bool. */
  blocking: boolean | null;
  severity: string | null;
  category: string | null;
  kind: string | null;
  scope: string | null;
  preferred: string | null;
  /** Ralph splits the stored newline-joined text with str::lines(). */
  options: string[] | null;
  rationale: string | null;
  why: string | null;
  detail: string | null;
  text: string | null;
  answer: string | null;
}

export type RalphComment = LegacyComment | SignalComment;

/** Rust str::lines(): split on \n, drop a trailing \r per line, no final empty line. */
function rustLines(s: string): string[] {
  if (s === '') return [];
  const parts = s.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (s.endsWith('\n')) parts.pop();
  return parts;
}

function commentsLegacy(db: Db, taskId: number): LegacyComment[] {
  // 936f316 get_comments_for_task, already oldest first.
  return all(
    db,
    'SELECT id, author, discipline, agent_task_id, priority, body, created FROM task_comments WHERE task_id = ? ORDER BY id',
    taskId,
  ).map((r) => ({
    generation: 'legacy',
    id: num(r.id),
    author: r.author as string,
    body: r.body as string,
    created: text(r.created),
    discipline: text(r.discipline),
    priority: text(r.priority),
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

function commentsNormalized(db: Db, taskId: number): SignalComment[] {
  return all(db, SIGNALS_SQL, taskId).map((r) => ({
    generation: 'normalized',
    id: num(r.id),
    author: r.author as string,
    body: r.body as string,
    created: text(r.created),
    session_id: text(r.session_id),
    verb: text(r.verb),
    summary: text(r.summary),
    remaining: text(r.remaining),
    reason: text(r.reason),
    question: text(r.question),
    what: text(r.what),
    on: text(r.on),
    blocking: typeof r.blocking === 'number' ? r.blocking !== 0 : null,
    severity: text(r.severity),
    category: text(r.category),
    kind: text(r.kind),
    scope: text(r.scope),
    preferred: text(r.preferred),
    options: typeof r.options === 'string' ? rustLines(r.options) : null,
    rationale: text(r.rationale),
    why: text(r.why),
    detail: text(r.detail),
    text: text(r.text),
    answer: text(r.answer),
  }));
}

/** Oldest first (ascending id) in both generations. */
export function ralphComments(dbPath: string, taskId: number): RalphComment[] {
  return withDb(dbPath, (db) =>
    generationOfDb(db) === 'normalized' ? commentsNormalized(db, taskId) : commentsLegacy(db, taskId),
  );
}

// ---------------------------------------------------------------------------------------------------------
// 5. a feature/subsystem and a discipline

export interface RalphLearning {
  /** subsystem_comments.id (normalized); null on legacy. */
  id: number | null;
  text: string;
  /** Same as text (normalized column name). */
  body: string;
  reason: string | null;
  summary: string | null;
  created: string | null;
  updated: string | null;
  /** legacy `task_id` / normalized `agent_task_id`. */
  task_id: number | null;
  /** legacy `iteration` / normalized `source_iteration`. */
  iteration: number | null;
  /** normalized: discipline name (LEFT JOIN); legacy: null. */
  discipline: string | null;
  /** legacy only: auto/agent/human/opus_reviewed. */
  source: string | null;
  hit_count: number | null;
  reviewed: boolean | null;
}

export interface RalphFeature {
  name: string;
  display_name: string;
  acronym: string;
  description: string | null;
  architecture: string | null;
  boundaries: string | null;
  /** normalized only (active/archived); null on legacy. */
  status: string | null;
  created: string | null;
  knowledge_paths: string[];
  context_files: string[];
  /** Names of the features/subsystems this one depends on. */
  dependencies: string[];
  /** Oldest first (Ralph's get_all_comments_by_subsystem orders by id DESC). */
  learnings: RalphLearning[];
}

const LEARNING_SOURCES = ['agent', 'human', 'opus_reviewed'] as const;

/**
 * FeatureLearning's hand-written Deserialize (936f316 ralph-rag/src/learning.rs): a string, or an object
 * with a string `text`; anything else is an error, and as the column is read with unwrap_or_default, one
 * such element makes Ralph see NO learnings at all for that feature.
 */
function legacyLearning(v: unknown): RalphLearning | undefined {
  const blank = {
    id: null,
    reason: null,
    summary: null,
    created: null,
    updated: null,
    task_id: null,
    iteration: null,
    discipline: null,
  };
  if (typeof v === 'string') return { ...blank, text: v, body: v, source: 'auto', hit_count: 1, reviewed: false };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.text !== 'string') return undefined;
  return {
    ...blank,
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

function featureLegacy(db: Db, name: string): RalphFeature | undefined {
  // features.name is a plain (BINARY) primary key: legacy lookups are case-sensitive.
  const r = get(db, 'SELECT * FROM features WHERE name = ?', name);
  if (r === undefined) return undefined;
  return {
    name: r.name as string,
    display_name: r.display_name as string,
    acronym: r.acronym as string,
    description: text(r.description),
    architecture: text(r.architecture),
    boundaries: text(r.boundaries),
    status: null,
    created: text(r.created),
    knowledge_paths: stringList(r.knowledge_paths),
    context_files: stringList(r.context_files),
    dependencies: stringList(r.dependencies),
    learnings: serdeList(r.learnings, legacyLearning),
  };
}

function featureNormalized(db: Db, name: string): RalphFeature | undefined {
  // subsystems.name is COLLATE NOCASE, so `=` matches case-insensitively, as in Ralph's own lookups.
  const r = get(db, 'SELECT * FROM subsystems WHERE name = ?', name);
  if (r === undefined) return undefined;
  const id = num(r.id);
  const strings = (sql: string) => column(db, sql, id).map(String);
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
      reason: text(c.reason),
      summary: text(c.summary),
      created: text(c.created),
      updated: text(c.updated),
      task_id: u32(c.agent_task_id),
      iteration: u32(c.source_iteration),
      discipline: text(c.discipline),
      source: null,
      hit_count: null,
      reviewed: null,
    }),
  );
  return {
    name: r.name as string,
    display_name: r.display_name as string,
    acronym: r.acronym as string,
    description: text(r.description),
    architecture: text(r.architecture),
    boundaries: text(r.boundaries),
    status: text(r.status),
    created: text(r.created),
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
  return withDb(dbPath, (db) =>
    generationOfDb(db) === 'normalized' ? featureNormalized(db, name) : featureLegacy(db, name),
  );
}

export interface RalphMcpServer {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface RalphDiscipline {
  name: string;
  display_name: string;
  acronym: string;
  icon: string;
  color: string;
  description: string | null;
  system_prompt: string | null;
  conventions: string | null;
  skills: string[];
  mcp_servers: RalphMcpServer[];
  /** normalized only (null on legacy). */
  agent: string | null;
  model: string | null;
  effort: string | null;
  thinking: boolean | null;
}

/** serde for McpServerConfig: name and command required, args/env default to empty when absent. */
function legacyMcpServer(v: unknown): RalphMcpServer | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.name !== 'string' || typeof o.command !== 'string') return undefined;
  let args: string[] = [];
  if (o.args !== undefined) {
    if (!Array.isArray(o.args) || !o.args.every((a) => typeof a === 'string')) return undefined;
    args = o.args as string[];
  }
  let env: Record<string, string> = {};
  if (o.env !== undefined) {
    if (typeof o.env !== 'object' || o.env === null || Array.isArray(o.env)) return undefined;
    if (!Object.values(o.env).every((x) => typeof x === 'string')) return undefined;
    env = o.env as Record<string, string>;
  }
  return { name: o.name, command: o.command, args, env };
}

function disciplineBase(r: Row) {
  return {
    name: r.name as string,
    display_name: r.display_name as string,
    acronym: r.acronym as string,
    icon: r.icon as string,
    color: r.color as string,
    description: text(r.description),
    system_prompt: text(r.system_prompt),
    conventions: text(r.conventions),
  };
}

function disciplineLegacy(db: Db, name: string): RalphDiscipline | undefined {
  const r = get(db, 'SELECT * FROM disciplines WHERE name = ?', name);
  if (r === undefined) return undefined;
  return {
    ...disciplineBase(r),
    skills: stringList(r.skills),
    mcp_servers: serdeList(r.mcp_servers, legacyMcpServer),
    agent: null,
    model: null,
    effort: null,
    thinking: null,
  };
}

function mcpServersNormalized(db: Db, disciplineId: number): RalphMcpServer[] {
  // helpers.rs read_mcp_servers: servers by id, args by arg_order (id breaks ties here), env as a map.
  return all(
    db,
    'SELECT id, name, command FROM discipline_mcp_servers WHERE discipline_id = ? ORDER BY id',
    disciplineId,
  ).map((s) => {
    const sid = num(s.id);
    const args = column(
      db,
      'SELECT arg FROM discipline_mcp_server_args WHERE server_id = ? ORDER BY arg_order, id',
      sid,
    ).map(String);
    const env: Record<string, string> = {};
    for (const e of all(db, 'SELECT key, value FROM discipline_mcp_server_env WHERE server_id = ? ORDER BY id', sid)) {
      env[e.key as string] = e.value as string;
    }
    return { name: s.name as string, command: s.command as string, args, env };
  });
}

function disciplineNormalized(db: Db, name: string): RalphDiscipline | undefined {
  const r = get(db, 'SELECT * FROM disciplines WHERE name = ?', name);
  if (r === undefined) return undefined;
  const id = num(r.id);
  return {
    ...disciplineBase(r),
    skills: column(db, 'SELECT skill FROM discipline_skills WHERE discipline_id = ? ORDER BY id', id).map(String),
    mcp_servers: mcpServersNormalized(db, id),
    agent: text(r.agent),
    model: text(r.model),
    effort: text(r.effort),
    thinking: typeof r.thinking === 'number' ? r.thinking !== 0 : null,
  };
}

/** Case-insensitive on normalized databases (NOCASE column), exact on legacy ones. */
export function ralphDiscipline(dbPath: string, name: string): RalphDiscipline | undefined {
  return withDb(dbPath, (db) =>
    generationOfDb(db) === 'normalized' ? disciplineNormalized(db, name) : disciplineLegacy(db, name),
  );
}

// ---------------------------------------------------------------------------------------------------------
// 6. invariants: each a named check returning human-readable violations, prefixed `[name] `

export interface Invariant {
  name: string;
  /** What Ralph relies on, in one line. */
  rule: string;
  check: (db: Db) => string[];
}

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
    const rows = copy.pragma('integrity_check') as { integrity_check: string }[];
    const msgs = rows.map((r) => r.integrity_check);
    return msgs.length === 1 && msgs[0] === 'ok' ? [] : msgs;
  } finally {
    copy.close();
  }
}

function foreignKeyCheck(db: Db): string[] {
  db.pragma('foreign_keys = ON'); // Ralph opens every connection with foreign_keys = ON
  const rows = db.pragma('foreign_key_check') as {
    table: string;
    rowid: number | null;
    parent: string;
    fkid: number;
  }[];
  return rows.map((r) => `${r.table} rowid ${String(r.rowid)} has no parent row in ${r.parent} (fk #${r.fkid})`);
}

/** Each row `sql` returns is one violation, worded by `describe`. */
function rowsAsViolations(db: Db, sql: string, describe: (r: Row) => string): string[] {
  return all(db, sql).map(describe);
}

function valuesOutside(
  db: Db,
  table: string,
  col: string,
  allowed: readonly (string | number)[],
  key = 'id',
): string[] {
  const list = allowed.map((v) => (typeof v === 'number' ? String(v) : `'${v}'`)).join(', ');
  return rowsAsViolations(
    db,
    `SELECT ${key} AS k, "${col}" AS v FROM ${table} WHERE "${col}" IS NOT NULL AND "${col}" NOT IN (${list})`,
    (r) =>
      `${table}.${col} = ${JSON.stringify(r.v)} (${table} ${key} ${String(r.k)}) is not one of ${allowed.join('/')}`,
  );
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const CLOCK = /([01]\d|2[0-3]):[0-5]\d:[0-5]\d/.source;
const DATE_TIME_SPACE = new RegExp(`^${DATE.source.slice(1, -1)} ${CLOCK}$`);
const RFC3339_UTC = new RegExp(`^${DATE.source.slice(1, -1)}T${CLOCK}(\\.\\d+)?Z$`);

function formatViolations(
  db: Db,
  table: string,
  col: string,
  ok: (v: string) => boolean,
  nullable: boolean,
  expected: string,
  key = 'id',
): string[] {
  const out: string[] = [];
  for (const r of all(db, `SELECT ${key} AS k, "${col}" AS v FROM ${table}`)) {
    if (r.v === null && nullable) continue;
    if (typeof r.v === 'string' && ok(r.v)) continue;
    out.push(`${table}.${col} = ${JSON.stringify(r.v)} (${table} ${key} ${String(r.k)}) is not ${expected}`);
  }
  return out;
}

const isDate = (v: string) => DATE.test(v);
const isRfc3339 = (v: string) => RFC3339_UTC.test(v);
const isUpdated = (v: string) => DATE.test(v) || DATE_TIME_SPACE.test(v);

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

const NORMALIZED: Invariant[] = [
  {
    name: 'integrity_check',
    rule: 'PRAGMA integrity_check is ok (incl. every CHECK constraint)',
    check: integrityCheck,
  },
  { name: 'foreign_key_check', rule: 'PRAGMA foreign_key_check is empty', check: foreignKeyCheck },
  {
    name: 'task_status_known',
    rule: 'runtime_tasks.status is one of TaskStatus (needs_input/failed pass the CHECK but break Ralph)',
    check: (db) => valuesOutside(db, 'runtime_tasks', 'status', RALPH_STATUSES),
  },
  {
    name: 'done_has_completed',
    rule: "status 'done' implies completed is set",
    check: (db) =>
      rowsAsViolations(
        db,
        "SELECT id FROM runtime_tasks WHERE status = 'done' AND completed IS NULL",
        (r) => `task ${String(r.id)} is done but completed is NULL`,
      ),
  },
  {
    name: 'task_joins_resolve',
    rule: "every runtime task joins its task_details, subsystem and the details' discipline (else Ralph hides it)",
    check: (db) => [
      ...rowsAsViolations(
        db,
        'SELECT t.id, t.details_id AS x FROM runtime_tasks t LEFT JOIN task_details td ON td.id = t.details_id WHERE td.id IS NULL',
        (r) => `task ${String(r.id)}: task_details ${String(r.x)} missing`,
      ),
      ...rowsAsViolations(
        db,
        'SELECT t.id, t.subsystem_id AS x FROM runtime_tasks t LEFT JOIN subsystems f ON f.id = t.subsystem_id WHERE f.id IS NULL',
        (r) => `task ${String(r.id)}: subsystem ${String(r.x)} missing`,
      ),
      ...rowsAsViolations(
        db,
        `SELECT t.id, td.discipline_id AS x FROM runtime_tasks t JOIN task_details td ON td.id = t.details_id
         LEFT JOIN disciplines d ON d.id = td.discipline_id WHERE d.id IS NULL`,
        (r) => `task ${String(r.id)}: discipline ${String(r.x)} missing`,
      ),
    ],
  },
  {
    name: 'criterion_order_contiguous',
    rule: 'per task, criterion_order is exactly 0..n-1 (Ralph orders by it and rewrites it that way)',
    check: (db) =>
      rowsAsViolations(
        db,
        `SELECT task_id, group_concat(criterion_order) AS orders FROM
           (SELECT task_id, criterion_order FROM task_acceptance_criteria ORDER BY task_id, criterion_order)
         GROUP BY task_id
         HAVING COUNT(*) != COUNT(DISTINCT criterion_order) OR MIN(criterion_order) != 0 OR MAX(criterion_order) != COUNT(*) - 1`,
        (r) => `task ${String(r.task_id)}: criterion_order is [${String(r.orders)}], not 0..n-1`,
      ),
  },
  {
    name: 'signal_session_exists',
    rule: 'every task_signals.session_id has an agent_sessions row',
    check: (db) =>
      rowsAsViolations(
        db,
        'SELECT s.id, s.session_id FROM task_signals s LEFT JOIN agent_sessions a ON a.id = s.session_id WHERE a.id IS NULL',
        (r) => `signal ${String(r.id)}: agent session ${JSON.stringify(r.session_id)} missing`,
      ),
  },
  {
    name: 'priority_known',
    rule: 'task_details.priority is low/medium/high/critical or NULL',
    check: (db) => valuesOutside(db, 'task_details', 'priority', RALPH_PRIORITIES),
  },
  {
    name: 'provenance_known',
    rule: 'runtime_tasks.provenance is agent/human/system or NULL',
    check: (db) => valuesOutside(db, 'runtime_tasks', 'provenance', RALPH_PROVENANCES),
  },
  {
    name: 'agent_known',
    rule: 'task_details/disciplines agent is claude/codex or NULL',
    check: (db) => [
      ...valuesOutside(db, 'task_details', 'agent', RALPH_AGENTS),
      ...valuesOutside(db, 'disciplines', 'agent', RALPH_AGENTS),
    ],
  },
  {
    name: 'effort_known',
    rule: 'task_details/disciplines effort is low/medium/high or NULL',
    check: (db) => [
      ...valuesOutside(db, 'task_details', 'effort', RALPH_EFFORTS),
      ...valuesOutside(db, 'disciplines', 'effort', RALPH_EFFORTS),
    ],
  },
  {
    name: 'thinking_known',
    rule: 'task_details/disciplines thinking is 0/1 or NULL',
    check: (db) => [
      ...valuesOutside(db, 'task_details', 'thinking', [0, 1]),
      ...valuesOutside(db, 'disciplines', 'thinking', [0, 1]),
    ],
  },
  {
    name: 'acronym_format',
    rule: 'subsystem and discipline acronyms are exactly 4 of [A-Z0-9] (acronym.rs)',
    check: (db) => [
      ...formatViolations(db, 'subsystems', 'acronym', (v) => /^[A-Z0-9]{4}$/.test(v), false, '4 of [A-Z0-9]'),
      ...formatViolations(db, 'disciplines', 'acronym', (v) => /^[A-Z0-9]{4}$/.test(v), false, '4 of [A-Z0-9]'),
    ],
  },
  {
    name: 'task_dates',
    rule: 'task, template and subsystem created (and task completed/enriched_at) are YYYY-MM-DD or NULL',
    check: (db) => [
      ...formatViolations(db, 'runtime_tasks', 'created', isDate, true, 'YYYY-MM-DD'),
      ...formatViolations(db, 'runtime_tasks', 'completed', isDate, true, 'YYYY-MM-DD'),
      ...formatViolations(db, 'runtime_tasks', 'enriched_at', isDate, true, 'YYYY-MM-DD'),
      ...formatViolations(db, 'task_details', 'created', isDate, true, 'YYYY-MM-DD'),
      ...formatViolations(db, 'task_templates', 'created', isDate, true, 'YYYY-MM-DD'),
      ...formatViolations(db, 'subsystems', 'created', isDate, true, 'YYYY-MM-DD'),
    ],
  },
  {
    name: 'rfc3339_timestamps',
    rule: 'signal, signal-comment, session and subsystem-comment times are RFC 3339 UTC (YYYY-MM-DDTHH:MM:SS[.f]Z)',
    check: (db) => {
      const e = 'RFC 3339 UTC';
      return [
        // The column DEFAULT datetime('now') would write 'YYYY-MM-DD HH:MM:SS' here: Ralph never relies on it.
        ...formatViolations(db, 'task_signals', 'created', isRfc3339, false, e),
        ...formatViolations(db, 'task_signal_comments', 'created', isRfc3339, false, e),
        ...formatViolations(db, 'agent_sessions', 'started', isRfc3339, false, e),
        ...formatViolations(db, 'agent_sessions', 'ended', isRfc3339, true, e),
        // Ralph reads a subsystem comment's created as Option<String>: NULL is fine (an undated legacy learning).
        ...formatViolations(db, 'subsystem_comments', 'created', isRfc3339, true, e),
        ...formatViolations(db, 'subsystem_comments', 'updated', isRfc3339, true, e),
      ];
    },
  },
  {
    name: 'updated_format',
    rule: "runtime_tasks/task_details/task_templates updated is NULL, YYYY-MM-DD (Ralph) or 'YYYY-MM-DD HH:MM:SS' (the triggers)",
    check: (db) => {
      const e = "NULL, YYYY-MM-DD or 'YYYY-MM-DD HH:MM:SS'";
      return [
        ...formatViolations(db, 'runtime_tasks', 'updated', isUpdated, true, e),
        ...formatViolations(db, 'task_details', 'updated', isUpdated, true, e),
        ...formatViolations(db, 'task_templates', 'updated', isUpdated, true, e),
      ];
    },
  },
  {
    name: 'required_text_nonblank',
    rule: 'task titles, subsystem/discipline names and display names, comment bodies are not blank (Ralph refuses blank ones)',
    check: (db) => {
      const blank = (table: string, col: string) =>
        rowsAsViolations(
          db,
          `SELECT id, "${col}" AS v FROM ${table} WHERE trim("${col}") = ''`,
          (r) => `${table}.${col} is blank (${table} id ${String(r.id)})`,
        );
      return [
        ...blank('task_details', 'title'),
        ...blank('subsystems', 'name'),
        ...blank('subsystems', 'display_name'),
        ...blank('disciplines', 'name'),
        ...blank('disciplines', 'display_name'),
        ...blank('subsystem_comments', 'body'),
        ...rowsAsViolations(
          db,
          `SELECT id FROM task_signals WHERE trim(COALESCE(text, summary, reason, question, what, "on", '')) = ''`,
          (r) => `task_signals ${String(r.id)} has a blank required field`,
        ),
      ];
    },
  },
  {
    name: 'dependencies_acyclic',
    rule: 'task_dependencies has no cycle (Ralph refuses to create one on update)',
    check: dependencyCycles,
  },
  {
    name: 'task_list_loads',
    rule: "Ralph's get_task_list_items does not fail",
    check: (db) => {
      try {
        taskListNormalized(db);
        return [];
      } catch (e) {
        return [`task list fails to load: ${(e as Error).message}`];
      }
    },
  },
];

/** JSON-array TEXT columns of the legacy schema. NULL in a features/disciplines list drops the WHOLE row. */
const LEGACY_LISTS: {
  table: string;
  key: string;
  col: string;
  nullDropsRow: boolean;
  item: (v: unknown) => unknown;
}[] = [
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

function legacyJsonArrays(db: Db): string[] {
  const out: string[] = [];
  for (const l of LEGACY_LISTS) {
    for (const r of all(db, `SELECT ${l.key} AS k, ${l.col} AS v FROM ${l.table}`)) {
      // 936f316 reads tasks' NULL lists as '[]', but features/disciplines rows with a NULL list vanish.
      if (r.v === null && !l.nullDropsRow) continue;
      if (!Array.isArray(parseJson(r.v)))
        out.push(`${l.table}.${l.col} of ${String(r.k)} is not a JSON array: ${JSON.stringify(r.v)}`);
    }
  }
  return out;
}

function legacyJsonItems(db: Db): string[] {
  const out: string[] = [];
  for (const l of LEGACY_LISTS) {
    for (const r of all(db, `SELECT ${l.key} AS k, ${l.col} AS v FROM ${l.table}`)) {
      const parsed = parseJson(r.v);
      if (!Array.isArray(parsed)) continue; // legacy_json_arrays reports those
      const bad = parsed.findIndex((x) => l.item(x) === undefined);
      // serde fails the whole Vec on one bad element, so Ralph sees an empty list.
      if (bad >= 0)
        out.push(
          `${l.table}.${l.col} of ${String(r.k)}: element ${bad} ${JSON.stringify(parsed[bad])} is unreadable (Ralph sees [])`,
        );
    }
  }
  return out;
}

function legacyDependsOnExists(db: Db): string[] {
  const ids = new Set(all(db, 'SELECT id FROM tasks').map((r) => num(r.id)));
  const out: string[] = [];
  for (const r of all(db, 'SELECT id, depends_on FROM tasks ORDER BY id')) {
    for (const dep of idList(r.depends_on)) {
      if (!ids.has(dep)) out.push(`task ${String(r.id)} depends on missing task ${dep}`);
    }
  }
  return out;
}

const LEGACY: Invariant[] = [
  {
    name: 'integrity_check',
    rule: 'PRAGMA integrity_check is ok (incl. every CHECK constraint)',
    check: integrityCheck,
  },
  { name: 'foreign_key_check', rule: 'PRAGMA foreign_key_check is empty', check: foreignKeyCheck },
  {
    name: 'task_status_known',
    rule: 'tasks.status is one of TaskStatus (936f316 shows anything else as pending)',
    check: (db) => valuesOutside(db, 'tasks', 'status', RALPH_STATUSES),
  },
  {
    name: 'done_has_completed',
    rule: "status 'done' implies completed is set (no CHECK in the legacy schema)",
    check: (db) =>
      rowsAsViolations(
        db,
        "SELECT id FROM tasks WHERE status = 'done' AND completed IS NULL",
        (r) => `task ${String(r.id)} is done but completed is NULL`,
      ),
  },
  {
    name: 'priority_known',
    rule: 'tasks.priority is low/medium/high/critical or NULL',
    check: (db) => valuesOutside(db, 'tasks', 'priority', RALPH_PRIORITIES),
  },
  {
    name: 'provenance_known',
    rule: 'tasks.provenance is agent/human/system or NULL',
    check: (db) => valuesOutside(db, 'tasks', 'provenance', RALPH_PROVENANCES),
  },
  {
    name: 'acronym_format',
    rule: 'feature and discipline acronyms are exactly 4 of [A-Z0-9]',
    check: (db) => [
      ...formatViolations(db, 'features', 'acronym', (v) => /^[A-Z0-9]{4}$/.test(v), false, '4 of [A-Z0-9]', 'name'),
      ...formatViolations(db, 'disciplines', 'acronym', (v) => /^[A-Z0-9]{4}$/.test(v), false, '4 of [A-Z0-9]', 'name'),
    ],
  },
  { name: 'legacy_json_arrays', rule: 'every JSON list column holds a JSON array', check: legacyJsonArrays },
  {
    name: 'legacy_json_items',
    rule: 'every JSON list element has the type Ralph deserializes (else Ralph sees an empty list)',
    check: legacyJsonItems,
  },
  { name: 'depends_on_exists', rule: 'tasks.depends_on names existing task ids', check: legacyDependsOnExists },
];

export const NORMALIZED_INVARIANT_NAMES: readonly string[] = NORMALIZED.map((i) => i.name);
export const LEGACY_INVARIANT_NAMES: readonly string[] = LEGACY.map((i) => i.name);

/** The rules by name, for messages and docs. */
export function describeInvariants(generation: Generation): { name: string; rule: string }[] {
  return (generation === 'normalized' ? NORMALIZED : LEGACY).map(({ name, rule }) => ({ name, rule }));
}

/** Runs every check even if an earlier one failed; a check that throws is itself a violation. */
function runInvariants(db: Db, list: Invariant[]): string[] {
  const out: string[] = [];
  for (const inv of list) {
    let found: string[];
    try {
      found = inv.check(db);
    } catch (e) {
      found = [`check threw: ${(e as Error).message}`];
    }
    out.push(...found.map((v) => `[${inv.name}] ${v}`));
  }
  return out;
}

/** Violations of the rules Ralph head's code relies on; each string starts with `[rule_name] `. */
export function normalizedInvariants(dbPath: string): string[] {
  return withDb(dbPath, (db) => {
    if (generationOfDb(db) !== 'normalized') throw new Error(`${dbPath} is not a normalized (head) Ralph database`);
    return runInvariants(db, NORMALIZED);
  });
}

/** Violations of the rules legacy Ralph (936f316) relies on; each string starts with `[rule_name] `. */
export function legacyInvariants(dbPath: string): string[] {
  return withDb(dbPath, (db) => {
    if (generationOfDb(db) !== 'legacy') throw new Error(`${dbPath} is not a legacy Ralph database`);
    return runInvariants(db, LEGACY);
  });
}

// ---------------------------------------------------------------------------------------------------------
// 7. counts

export interface RalphCounts {
  tasks: number;
  dependencies: number;
  criteria: number;
  /** legacy task_comments rows / normalized task_signals rows. */
  comments: number;
  /** legacy features.learnings elements (as Ralph parses them) / subsystem_comments with category 'learning'. */
  learnings: number;
  features: number;
  disciplines: number;
  tags: number;
  context_files: number;
  output_artifacts: number;
}

function countOf(db: Db, sql: string): number {
  return num(db.prepare(sql).pluck().get());
}

function countsNormalized(db: Db): RalphCounts {
  const c = (table: string, where = '') => countOf(db, `SELECT COUNT(*) FROM ${table} ${where}`);
  return {
    tasks: c('runtime_tasks'),
    dependencies: c('task_dependencies'),
    criteria: c('task_acceptance_criteria'),
    comments: c('task_signals'),
    learnings: c('subsystem_comments', "WHERE category = 'learning'"),
    features: c('subsystems'),
    disciplines: c('disciplines'),
    tags: c('task_tags'),
    context_files: c('task_context_files'),
    output_artifacts: c('task_output_artifacts'),
  };
}

function countsLegacy(db: Db): RalphCounts {
  // Count what Ralph would parse out of each JSON column (an unreadable list counts as empty).
  const sum = (table: string, col: string, parse: (json: unknown) => unknown[]) =>
    db
      .prepare(`SELECT ${col} FROM ${table}`)
      .pluck()
      .all()
      .reduce<number>((n, json) => n + parse(json).length, 0);
  return {
    tasks: countOf(db, 'SELECT COUNT(*) FROM tasks'),
    dependencies: sum('tasks', 'depends_on', idList),
    criteria: sum('tasks', 'acceptance_criteria', stringList),
    comments: countOf(db, 'SELECT COUNT(*) FROM task_comments'),
    learnings: sum('features', 'learnings', (json) => serdeList(json, legacyLearning)),
    features: countOf(db, 'SELECT COUNT(*) FROM features'),
    disciplines: countOf(db, 'SELECT COUNT(*) FROM disciplines'),
    tags: sum('tasks', 'tags', stringList),
    context_files: sum('tasks', 'context_files', stringList),
    output_artifacts: sum('tasks', 'output_artifacts', stringList),
  };
}

export function counts(dbPath: string): RalphCounts {
  return withDb(dbPath, (db) => (generationOfDb(db) === 'normalized' ? countsNormalized(db) : countsLegacy(db)));
}
