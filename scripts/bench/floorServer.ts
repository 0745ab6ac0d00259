/**
 * The floor `npm run bench` measures ralph-mcp against: the least a stdio MCP server can do to answer
 * `get_task` on a legacy Ralph database. Plain Node and better-sqlite3, no SDK, no zod, no logger:
 * newline-delimited JSON-RPC, a static initialize and tools/list, the database checks every launch
 * needs (the tables exist), and a hand-written get_task running exactly the statements ours runs for
 * it (the task row, each dependency's head, the newest comments and their count, the dependents from our
 * mirror, open questions, the claim), answered once, as text.
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
for (const t of ['tasks', 'features', 'disciplines', 'task_comments']) {
  if (!tables.has(t)) {
    process.stderr.write(`floor: not a legacy Ralph database (missing ${t})\n`);
    process.exit(2);
  }
}
// The statements ralph-mcp's get_task runs on this generation, character for character (src/store/legacy).
const task = db.prepare('SELECT * FROM tasks WHERE id = ?');
const head = db.prepare('SELECT id, title, status, feature, discipline FROM tasks WHERE id = ?');
const comments = db.prepare(
  'SELECT * FROM (SELECT * FROM task_comments WHERE task_id = ? AND id < ? ORDER BY id DESC LIMIT CAST(? AS INTEGER)) ORDER BY id',
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
const LISTS = ['acceptance_criteria', 'depends_on', 'tags', 'context_files', 'output_artifacts'] as const;

function getTask(args: unknown): { text: string; isError: boolean } {
  const id = (args as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    return { text: '{"error":{"code":"invalid_argument","message":"id: a positive integer"}}', isError: true };
  const row = task.get(id) as Record<string, unknown> | undefined;
  if (!row) return { text: `{"error":{"code":"not_found","message":"task ${id} does not exist"}}`, isError: true };
  for (const k of LISTS) row[k] = typeof row[k] === 'string' ? JSON.parse(row[k] as string) : [];
  const page = comments.all(id, Number.MAX_SAFE_INTEGER, 21) as { id: number }[];
  const shown = page.length > 20 ? page.slice(1) : page;
  const deps = (row.depends_on as unknown[]).filter((d): d is number => typeof d === 'number');
  const out = {
    task: row,
    comments: shown,
    comment_count: (commentCount.get(id) as { n: number }).n,
    older_comments_before: page.length > 20 ? shown[0]!.id : null,
    dependencies: deps.map((d) => {
      const h = head.get(d) as { title: string; status: string } | undefined;
      return h ? { id: d, title: h.title, status: h.status } : { id: d, title: null, status: 'missing' };
    }),
    dependents: dependents ? (dependents.all(id, id, 1001) as { id: number }[]).map((r) => r.id) : [],
    open_questions: questions ? (questions.all(id) as { answer: unknown }[]).filter((q) => q.answer === null) : [],
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
