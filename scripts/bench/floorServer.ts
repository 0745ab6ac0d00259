/**
 * The floor `npm run bench` measures ralph-mcp against: the least a stdio MCP server can do to answer
 * `get_task` on a Ralph database of either generation. Plain Node and better-sqlite3, no SDK, no zod, no
 * logger: newline-delimited JSON-RPC, a static initialize and tools/list, the database checks every launch
 * needs (the tables exist), and a hand-written get_task running exactly the statements ours runs for
 * it on that generation (the task row, each dependency's head, the newest comments and their count, the
 * dependents, open questions, the claim), answered once, as text.
 *
 *   node dist/scripts/bench/floorServer.js DB_PATH
 */
import Database from 'better-sqlite3';
import { createInterface } from 'node:readline';

const db = new Database(process.argv[2]!, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const tables = new Set(
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name),
);
const generation = tables.has('runtime_tasks') ? 'normalized' : 'legacy';
const needed =
  generation === 'legacy'
    ? ['tasks', 'features', 'disciplines', 'task_comments']
    : ['runtime_tasks', 'task_details', 'subsystems', 'disciplines', 'task_signals', 'agent_sessions'];
for (const t of needed) {
  if (!tables.has(t)) {
    process.stderr.write(`floor: not a Ralph database (missing ${t})\n`);
    process.exit(2);
  }
}

type Row = Record<string, unknown>;
/** What get_task reads, as statements of one generation. */
interface Reads {
  /** The task, its newest comments (oldest first), dependents and questions in one read, where ours has one. */
  view?(id: number):
    | {
        task: Row;
        comments: Row[];
        dependents: number[];
        questions: Row[];
        heads: Map<number, { title: string; status: string }>;
      }
    | undefined;
  task(id: number): Row | undefined;
  head(id: number): { title: string; status: string } | undefined;
  comments(id: number, before: number, n: number): Row[];
  commentCount(id: number): number;
  dependents(id: number): number[];
  questions(id: number): Row[];
}

/** The statements ralph-mcp's get_task runs on the legacy generation, character for character (src/store/legacy). */
function legacyReads(): Reads {
  const task = db.prepare('SELECT * FROM tasks WHERE id = ?');
  const head = db.prepare('SELECT id, title, status, feature, discipline FROM tasks WHERE id = ?');
  const comments = db.prepare(
    'SELECT * FROM task_comments WHERE task_id = ? AND id < ? ORDER BY id DESC LIMIT CAST(? AS INTEGER)',
  );
  const commentCount = db.prepare('SELECT count(*) AS n FROM task_comments WHERE task_id = ?');
  const dependents = tables.has('ralph_mcp_task_deps')
    ? db.prepare(
        'SELECT task_id AS id FROM ralph_mcp_task_deps WHERE depends_on = ? AND task_id <> ? ORDER BY task_id LIMIT CAST(? AS INTEGER)',
      )
    : undefined;
  const questions = tables.has('ralph_mcp_task_signals')
    ? db.prepare(
        "SELECT id, task_id, question, options, preferred, blocking, answer, session_id, created FROM ralph_mcp_task_signals WHERE task_id = ? AND verb = 'ask' ORDER BY id",
      )
    : undefined;
  const LISTS = ['acceptance_criteria', 'depends_on', 'tags', 'context_files', 'output_artifacts'] as const;
  return {
    task(id) {
      const row = task.get(id) as Row | undefined;
      if (row) for (const k of LISTS) row[k] = typeof row[k] === 'string' ? JSON.parse(row[k] as string) : [];
      return row;
    },
    head: (id) => head.get(id) as { title: string; status: string } | undefined,
    comments: (id, before, n) => (comments.all(id, before, n) as Row[]).reverse(),
    commentCount: (id) => (commentCount.get(id) as { n: number }).n,
    dependents: (id) => (dependents ? (dependents.all(id, id, 1001) as { id: number }[]).map((r) => r.id) : []),
    questions: (id) => (questions ? (questions.all(id) as Row[]) : []),
  };
}

/**
 * The statements ralph-mcp's get_task runs on the normalized generation (src/store/normalized), character
 * for character: the task's row from our mirror (ralph_mcp_task_rows, under the schema version it was found
 * whole in) with its comments, questions and dependents as JSON arrays (taskView.ts); a task without a row
 * by the joined read and a statement each; comments as signals with their session's and our metadata.
 */
function normalizedReads(): Reads {
  const list = (column: string, table: string, order: string) =>
    `(SELECT json_group_array(${column}) FROM (SELECT ${column} FROM ${table} WHERE task_id = t.id ORDER BY ${order} LIMIT 1001))`;
  const JOINS = `FROM runtime_tasks t 
  JOIN task_details d ON d.id = t.details_id
  JOIN subsystems s ON s.id = t.subsystem_id
  JOIN disciplines di ON di.id = d.discipline_id`;
  const COLUMNS = `
  t.id, s.name AS feature, di.name AS discipline, d.title, d.description, t.status, d.priority,
  ${list('tag', 'task_tags', 'id')} AS tags,
  ${list('depends_on_task_id', 'task_dependencies', 'id')} AS depends_on,
  (SELECT coalesce(b.detail, b."on") FROM task_signals b WHERE b.task_id = t.id AND b.verb = 'blocked' ORDER BY b.id DESC LIMIT 1) AS blocked_by,
  t.created, t.updated, t.completed,
  ${list('criterion', 'task_acceptance_criteria', 'criterion_order, id')} AS acceptance_criteria,
  ${list('file_path', 'task_context_files', 'id')} AS context_files,
  ${list('artifact_path', 'task_output_artifacts', 'id')} AS output_artifacts,
  d.hints, d.estimated_turns, t.provenance, d.pseudocode, t.enriched_at,
  t.template_id,
  (SELECT td.title FROM task_templates tt JOIN task_details td ON td.id = tt.details_id WHERE tt.id = t.template_id) AS template_title`;
  const NAMES = `feature, discipline, title, description, status, priority, tags, depends_on, blocked_by, created, updated,
  completed, acceptance_criteria, context_files, output_artifacts, hints, estimated_turns, provenance, pseudocode,
  enriched_at, template_id, template_title`;
  const mirror = tables.has('ralph_mcp_task_rows');
  const version = (db.prepare('PRAGMA schema_version').get() as { schema_version: number }).schema_version;
  const mirrored = mirror
    ? db.prepare(
        `SELECT task_id AS id, ${NAMES} FROM ralph_mcp_task_rows WHERE task_id = @id AND (SELECT schema_version FROM pragma_schema_version) = @v`,
      )
    : undefined;
  const mirroredHead = mirror
    ? db.prepare(
        'SELECT task_id AS id, title, status, feature, discipline FROM ralph_mcp_task_rows WHERE task_id = @id AND (SELECT schema_version FROM pragma_schema_version) = @v',
      )
    : undefined;
  const task = db.prepare(`SELECT ${COLUMNS} ${JOINS} WHERE t.id = ?`);
  const head = db.prepare(
    `SELECT t.id, d.title, t.status, s.name AS feature, di.name AS discipline ${JOINS} WHERE t.id = ?`,
  );
  const meta = tables.has('ralph_mcp_comment_meta');
  const comments = db.prepare(
    `SELECT sg.id, sg.task_id, sg.verb, sg.text, sg.summary, sg.remaining, sg.reason, sg.question, sg.what, sg."on",
  sg.severity, sg.category, sg.kind, sg.why, sg.detail, sg.answer, sg.created, a.started_by, ${meta ? 'm.author, m.discipline, m.agent_task_id, m.priority' : 'NULL AS author, NULL AS discipline, NULL AS agent_task_id, NULL AS priority'}
    FROM task_signals sg LEFT JOIN agent_sessions a ON a.id = sg.session_id ${meta ? 'LEFT JOIN ralph_mcp_comment_meta m ON m.signal_id = sg.id' : ''} WHERE sg.task_id = ? AND sg.id < ? ORDER BY sg.id DESC LIMIT CAST(? AS INTEGER)`,
  );
  const commentCount = db.prepare('SELECT count(*) AS n FROM task_signals WHERE task_id = ?');
  const dependents = db.prepare(
    'SELECT DISTINCT task_id AS id FROM task_dependencies WHERE depends_on_task_id = ? AND task_id <> ? ORDER BY task_id LIMIT CAST(? AS INTEGER)',
  );
  const questions = db.prepare(
    "SELECT id, task_id, question, options, preferred, blocking, answer, session_id, created FROM task_signals WHERE task_id = ? AND verb = 'ask' ORDER BY id",
  );
  const COMMENT_FIELDS = `id, task_id, verb, text, summary, remaining, reason, question, what, "on", severity, category, kind, why, detail,
  answer, created, started_by, author, discipline, agent_task_id, priority`;
  const QUESTION_COLUMNS = 'id, task_id, question, options, preferred, blocking, answer, session_id, created';
  const view = mirror
    ? db.prepare(`SELECT r.task_id AS id, ${NAMES},
  (SELECT json_group_array(json_array(${COMMENT_FIELDS})) FROM (SELECT sg.id, sg.task_id, sg.verb, sg.text, sg.summary, sg.remaining, sg.reason, sg.question, sg.what, sg."on",
  sg.severity, sg.category, sg.kind, sg.why, sg.detail, sg.answer, sg.created, a.started_by, m.author, m.discipline, m.agent_task_id, m.priority
    FROM task_signals sg LEFT JOIN agent_sessions a ON a.id = sg.session_id LEFT JOIN ralph_mcp_comment_meta m ON m.signal_id = sg.id
    WHERE sg.task_id = @id AND sg.id < @before ORDER BY sg.id DESC LIMIT CAST(@comments AS INTEGER))) AS view_comments,
  (SELECT json_group_array(json_array(${QUESTION_COLUMNS})) FROM (SELECT ${QUESTION_COLUMNS} FROM task_signals
    WHERE task_id = @id AND verb = 'ask' ORDER BY id)) AS view_questions,
  (SELECT json_group_array(id) FROM (SELECT DISTINCT task_id AS id FROM task_dependencies
    WHERE depends_on_task_id = @id AND task_id <> @id ORDER BY task_id LIMIT CAST(@dependents AS INTEGER))) AS view_dependents,
  CASE WHEN r.depends_on <> '[]' THEN (SELECT json_group_array(json_array(h.task_id, h.title, h.status))
    FROM json_each(r.depends_on) d JOIN ralph_mcp_task_rows h ON h.task_id = d.value) END AS view_heads
  FROM ralph_mcp_task_rows r WHERE r.task_id = @id AND (SELECT schema_version FROM pragma_schema_version) = @v`)
    : undefined;
  const names = (columns: string) => columns.split(',').map((c) => c.trim().replace(/"/g, ''));
  const commentNames = names(COMMENT_FIELDS);
  const questionNames = names(QUESTION_COLUMNS);
  const rows = (text: unknown, keys: string[]) =>
    (JSON.parse(String(text)) as unknown[][]).map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]])));
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : []);
  // A comment's author is who signed it, else who started its session (Ralph's own rule).
  const comment = (r: Row) => ({
    id: r.id,
    task_id: r.task_id,
    author: r.author ?? r.started_by ?? 'system',
    discipline: r.discipline,
    agent_task_id: r.agent_task_id,
    priority: r.priority,
    body: r.text ?? r.summary ?? r.reason ?? r.question ?? r.what ?? r.on,
    created: r.created,
  });
  const LISTS = ['tags', 'depends_on', 'acceptance_criteria', 'context_files', 'output_artifacts'];
  return {
    view(id) {
      const r = view?.get({ id, before: Number.MAX_SAFE_INTEGER, comments: 21, dependents: 1001, v: version }) as
        | Row
        | undefined;
      if (!r) return undefined;
      const { view_comments, view_questions, view_dependents, view_heads, ...row } = r;
      for (const k of LISTS) row[k] = json(row[k]);
      return {
        task: row,
        comments: rows(view_comments, commentNames).map(comment).reverse(),
        dependents: JSON.parse(String(view_dependents)) as number[],
        questions: rows(view_questions, questionNames),
        heads: new Map(
          (json(view_heads) as [number, string, string][]).map(([dep, title, status]) => [dep, { title, status }]),
        ),
      };
    },
    task(id) {
      const row = (mirrored?.get({ id, v: version }) ?? task.get(id)) as Row | undefined;
      if (row) for (const k of LISTS) row[k] = json(row[k]);
      return row;
    },
    head: (id) =>
      (mirroredHead?.get({ id, v: version }) ?? head.get(id)) as { title: string; status: string } | undefined,
    comments: (id, before, n) => (comments.all(id, before, n) as Row[]).map(comment).reverse(),
    commentCount: (id) => (commentCount.get(id) as { n: number }).n,
    dependents: (id) => (dependents.all(id, id, 1001) as { id: number }[]).map((r) => r.id),
    questions: (id) => questions.all(id) as Row[],
  };
}

const reads = generation === 'legacy' ? legacyReads() : normalizedReads();
const claim = tables.has('ralph_mcp_claims')
  ? db.prepare('SELECT task_id, session_id, claimed_at, lease_until FROM ralph_mcp_claims WHERE task_id = ?')
  : undefined;

const TOOLS = [
  {
    name: 'get_task',
    description: 'One task with its comments.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1 } },
      required: ['id'],
      additionalProperties: false,
    },
  },
];

function getTask(args: unknown): { text: string; isError: boolean } {
  const id = (args as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    return { text: '{"error":{"code":"invalid_argument","message":"id: a positive integer"}}', isError: true };
  const view = reads.view?.(id);
  const row = view?.task ?? reads.task(id);
  if (!row) return { text: `{"error":{"code":"not_found","message":"task ${id} does not exist"}}`, isError: true };
  const page = (view?.comments ?? reads.comments(id, Number.MAX_SAFE_INTEGER, 21)) as { id: number }[];
  const shown = page.length > 20 ? page.slice(1) : page;
  const deps = (row.depends_on as unknown[]).filter((d): d is number => typeof d === 'number');
  const out = {
    task: row,
    comments: shown,
    // As ours: the newest page, whole, is every comment there is (counted only when there are more).
    comment_count: page.length <= 20 ? page.length : reads.commentCount(id),
    older_comments_before: page.length > 20 ? shown[0]!.id : null,
    dependencies: deps.map((d) => {
      const h = view?.heads.get(d) ?? reads.head(d);
      return h ? { id: d, title: h.title, status: h.status } : { id: d, title: null, status: 'missing' };
    }),
    dependents: view?.dependents ?? reads.dependents(id),
    open_questions: (view?.questions ?? reads.questions(id)).filter((q) => q.answer === null),
    held_by: row.status === 'in_progress' && claim ? (claim.get(id) ?? null) : null,
  };
  return { text: JSON.stringify(out), isError: false };
}

const send = (msg: unknown) => process.stdout.write(`${JSON.stringify(msg)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  let m: { id?: number | string; method?: string; params?: { name?: string; arguments?: unknown } };
  try {
    m = JSON.parse(line);
  } catch {
    return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  if (m.id === undefined) return; // a notification
  switch (m.method) {
    case 'initialize':
      return send({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'floor', version: '0.0.0' },
        },
      });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id: m.id, result: { tools: TOOLS } });
    case 'tools/call': {
      if (m.params?.name !== 'get_task')
        return send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'Unknown tool' } });
      const r = getTask(m.params.arguments);
      return send({
        jsonrpc: '2.0',
        id: m.id,
        result: { content: [{ type: 'text', text: r.text }], isError: r.isError },
      });
    }
    case 'ping':
      return send({ jsonrpc: '2.0', id: m.id, result: {} });
    default:
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
process.stdin.on('end', () => {
  db.close();
  process.exit(0);
});
