import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Project } from '../../../src/domain/project.js';
import { CLI } from '../../helpers/env.js';
import { openInProc } from '../../contract/harness.js';
import { startHttpServer } from '../../helpers/httpServer.js';
import { inspect, inspectorError } from '../../helpers/inspector.js';
import { query, sampleProject } from '../../helpers/project.js';
import { RECIPE_TOOLS, inSpecOrder } from '../../helpers/spec.js';

/**
 * The built server driven by the MCP Inspector CLI (`mcp-inspector --cli`, a dev dependency), over
 * stdio and over Streamable HTTP: a third-party client, not our own test harness, sees the tool sets,
 * calls that succeed and fail, resources and prompts.
 *
 * Inspector CLI behaviour these tests rely on (2.12):
 * - `--tool-arg` / `--prompt-args` are variadic, so the target (command or URL) goes FIRST and those
 *   flags LAST; values are strings, converted by the tool's inputSchema (integer → Number, array →
 *   JSON.parse). The result is printed as JSON on stdout.
 * - A tool result with `isError: true` is printed all the same, and the run exits 5 with
 *   `{"error":{"code":"tool_is_error"}}` on stderr. The CLI lists the tools before a call and refuses a
 *   tool the listing lacks itself (exit 5, `tool_not_found`): a hidden tool never reaches the server.
 *   A JSON-RPC error (bad prompt, unknown resource) exits 1 with its message in that stderr line.
 * - HTTP headers go with `--header "Name: Value"`. A 401 starts an OAuth login unless
 *   `--stored-auth-only` (its mode for CI) makes it fail at once (exit 3) with the server's reply.
 * - The `mcp-inspector` bin (clients/launcher) with `--cli` loads the same CLI in its own process. Most
 *   runs call the CLI directly; one run goes through the bin, as `npx mcp-inspector --cli` would.
 */
type CallResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent: any };
type PromptResult = { messages: { role: string; content: { type: string; text: string } }[] };

/** A successful invocation's JSON result. */
async function ok<T = any>(target: string[], method: string[], viaBin = false): Promise<T> {
  const r = await inspect(target, method, viaBin);
  assert.equal(r.code, 0, `inspector ${method.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** A failed invocation: its exit code, nothing on stdout, the Inspector's error line on stderr. */
async function failed(target: string[], method: string[], exit: number): Promise<{ code: string; message: string }> {
  const r = await inspect(target, method);
  assert.equal(r.code, exit, `inspector ${method.join(' ')} should exit ${exit}, exited ${r.code}: ${r.stdout}`);
  assert.equal(r.stdout, '');
  return inspectorError(r);
}

/** `--tool-arg k=v …` (or `--prompt-args`), nothing when there are none. */
const pairs = (flag: string, args: Record<string, string>) =>
  Object.keys(args).length ? [flag, ...Object.entries(args).map(([k, v]) => `${k}=${v}`)] : [];
const listTools = (target: string[], viaBin = false) =>
  ok<{ tools: any[] }>(target, ['--method', 'tools/list'], viaBin);
/** A call's result; a refused one (isError) exits 5 with the Inspector's `tool_is_error` line. */
async function callTool(target: string[], tool: string, args: Record<string, string> = {}): Promise<CallResult> {
  const method = ['--method', 'tools/call', '--tool-name', tool, ...pairs('--tool-arg', args)];
  const r = await inspect(target, method);
  const result = JSON.parse(r.stdout) as CallResult;
  assert.equal(r.code, result.isError ? 5 : 0, `inspector ${method.join(' ')} exited ${r.code}:\n${r.stderr}`);
  if (result.isError) assert.equal(inspectorError(r).code, 'tool_is_error');
  return result;
}
/** A hidden tool is not in the listing, so the Inspector refuses it before any call (exit 5). */
const deleteTask8 = async (target: string[]) => {
  const e = await failed(target, ['--method', 'tools/call', '--tool-name', 'delete_task', '--tool-arg', 'id=8'], 5);
  assert.equal(e.code, 'tool_not_found');
  return e.message;
};
const readResource = async (target: string[], uri: string) => {
  const method = ['--method', 'resources/read', '--uri', uri];
  const r = await ok<{ contents: { uri: string; mimeType: string; text: string }[] }>(target, method);
  assert.deepEqual(
    r.contents.map((c) => c.uri),
    [uri],
  );
  return r.contents[0]!;
};
const getPrompt = (target: string[], name: string, args: Record<string, string> = {}) =>
  ok<PromptResult>(target, ['--method', 'prompts/get', '--prompt-name', name, ...pairs('--prompt-args', args)]);

/** The success result: not an error, and the text content is the structuredContent as JSON. */
function success(r: CallResult): any {
  assert.notEqual(r.isError, true, `call failed: ${JSON.stringify(r.structuredContent)}`);
  assert.deepEqual(JSON.parse(r.content[0]!.text), r.structuredContent);
  return r.structuredContent;
}

/** A refused call as the inspector shows it: isError, `code: message` text, structured { error }. */
function refused(r: CallResult, code: string): string {
  assert.equal(r.isError, true, `expected ${code}, got ${JSON.stringify(r.structuredContent)}`);
  assert.equal(r.structuredContent.error.code, code);
  assert.equal(r.content[0]!.text, `${code}: ${r.structuredContent.error.message}`);
  return r.structuredContent.error.message;
}

/** The listing the same recipe gets in-process (whose entries are the reviewed snapshots). */
async function listing(recipe: string): Promise<unknown> {
  const s = await openInProc(sampleProject(), { recipe });
  try {
    return (await s.client.listTools()).tools;
  } finally {
    await s.close();
  }
}
const names = (tools: { name: string }[]) => tools.map((t) => t.name);
/** `o`'s members named in `want` are exactly `want`'s. */
const assertHas = (o: Record<string, any> | undefined, want: Record<string, unknown>, what?: string) =>
  assert.deepEqual(Object.fromEntries(Object.keys(want).map((k) => [k, o?.[k]])), want, what);
const taskRow = (p: Project, id: number) => query<Record<string, any>>(p, 'SELECT * FROM tasks WHERE id = ?', id)[0];
const comments = (p: Project, taskId: number) =>
  query<Record<string, any>>(p, 'SELECT * FROM task_comments WHERE task_id = ? ORDER BY id', taskId);
/** The one user text message of a prompt. */
const text = (m: PromptResult): string => {
  assert.deepEqual(
    m.messages.map((x) => [x.role, x.content.type]),
    [['user', 'text']],
  );
  return m.messages[0]!.content.text;
};

/** Checks ralph://project against the rows themselves. */
function assertProjectResource(p: Project, json: string): void {
  const r = JSON.parse(json);
  const meta = query<Record<string, string>>(
    p,
    'SELECT project_title, project_description FROM metadata WHERE id = 1',
  )[0]!;
  assert.deepEqual([r.title, r.description], [meta.project_title, meta.project_description]);
  assert.equal(r.title, 'Recipe Box');
  const counted = query<{ status: string; n: number }>(p, 'SELECT status, COUNT(*) AS n FROM tasks GROUP BY status');
  const byStatus = Object.fromEntries(counted.map((x) => [x.status, x.n]));
  assert.equal(r.progress.total, query<{ n: number }>(p, 'SELECT COUNT(*) AS n FROM tasks')[0]!.n);
  assert.equal(r.progress.done, byStatus.done ?? 0);
  for (const [status, n] of Object.entries(r.progress.by_status))
    assert.equal(n, byStatus[status] ?? 0, `by_status.${status}`);
}

describe('MCP Inspector CLI over stdio (built artifact)', () => {
  const p = sampleProject();
  const server = (...flags: string[]) => [process.execPath, CLI, '--project', p.root, ...flags];
  const worker = server('--recipe', 'task_execution', '--task', '3');
  const yap = server('--recipe', 'yap');

  test('tools/list: exact tool sets for task_execution --task 3 and yap', async () => {
    // yap through the published bin, exactly as `npx mcp-inspector --cli ...` runs it.
    const [te, y] = await Promise.all([listTools(worker), listTools(yap, true)]);
    assert.deepEqual(names(te.tools), inSpecOrder(RECIPE_TOOLS.task_execution!));
    assert.deepEqual(names(y.tools), inSpecOrder(RECIPE_TOOLS.yap!, 'legacy'));
    // Unscoped, the listing is the reviewed one: what the same session lists in-process.
    assert.deepEqual(y.tools, await listing('yap'));
    // Scoped to task 3, the task id becomes optional and defaults to the session's task.
    const comment = te.tools.find((t) => t.name === 'add_task_comment')!;
    assert.ok(!(comment.inputSchema.required ?? []).includes('task_id'));
    assert.match(comment.inputSchema.properties.task_id.description, /task 3/);
  });

  test('tools/call succeeds: two writes that land in the database', async () => {
    const before = comments(p, 3).length;
    const [commented, created] = await Promise.all([
      // No task_id: the scoped session's own task.
      callTool(worker, 'add_task_comment', { body: 'Inspector: form wired to the API' }),
      // tags/depends_on are JSON-parsed by the inspector from the array-typed inputSchema.
      callTool(yap, 'create_task', {
        feature: 'search',
        discipline: 'frontend',
        title: 'Inspector-made task',
        priority: 'high',
        tags: '["ui","inspector"]',
        depends_on: '[5]',
      }),
    ]);

    const c = success(commented).comment;
    const body = 'Inspector: form wired to the API';
    assertHas(c, { task_id: 3, body });
    const rows = comments(p, 3);
    assert.equal(rows.length, before + 1);
    // Signed with the task's discipline, tied to the session's task.
    assertHas(
      rows.find((r) => r.id === c.id),
      { body, author: 'frontend', discipline: 'frontend', agent_task_id: 3 },
    );

    const t = success(created).task;
    assert.equal(typeof t.id, 'number');
    const title = 'Inspector-made task';
    assertHas(t, { title, tags: ['ui', 'inspector'], depends_on: [5] });
    const row = taskRow(p, t.id);
    assertHas(row, { title, feature: 'search', discipline: 'frontend', priority: 'high', status: 'pending' });
    assert.deepEqual([JSON.parse(row!.tags), JSON.parse(row!.depends_on)], [['ui', 'inspector'], [5]]);
  });

  test('tools/call fails: tool errors are isError with a stable code (exit 5); a hidden tool cannot be called; a JSON-RPC error (exit 1)', async () => {
    const [missing, outOfScope, hidden, unknown] = await Promise.all([
      callTool(yap, 'get_task', { id: '99' }),
      callTool(worker, 'set_task_status', { id: '5', status: 'done' }),
      deleteTask8(yap),
      failed(yap, ['--method', 'resources/read', '--uri', 'ralph://tasks/99'], 1),
    ]);
    assert.match(refused(missing, 'not_found'), /task 99 does not exist/);
    assert.match(refused(outOfScope, 'out_of_scope'), /scoped to task 3/);
    assert.equal(taskRow(p, 5)!.status, 'pending', 'the refused write changed nothing');
    assert.match(hidden, /Tool 'delete_task' not found on server/);
    assert.ok(taskRow(p, 8), 'task 8 still exists');
    // Our server's JSON-RPC error message reaches the Inspector's output.
    assert.match(unknown.message, /ralph:\/\/tasks\/99 \(task 99 does not exist/);
  });

  test('resources/read: ralph://project and ralph://learnings match the project', async () => {
    const learnings = '## 2026-01-07 frontend\nKeep form state in one reducer.\n';
    writeFileSync(p.learningsFile, learnings);
    const [project, learned] = await Promise.all([
      readResource(yap, 'ralph://project'),
      readResource(worker, 'ralph://learnings'),
    ]);
    assert.deepEqual([project.mimeType, learned.mimeType], ['application/json', 'application/json']);
    assertProjectResource(p, project.text);
    assert.equal(JSON.parse(learned.text).content, learnings);
  });

  test("prompts/get: task_brief for the session's task and the recipe prompt", async () => {
    const [own, recipe] = await Promise.all([getPrompt(worker, 'task_brief'), getPrompt(yap, 'yap')]);
    const brief = text(own);
    assert.match(brief, /^Brief for task #3\./);
    assert.ok(brief.includes(`"title": ${JSON.stringify(taskRow(p, 3)!.title)}`), 'the task');
    assert.match(brief, /The API returns 422 with a field map/, 'its comments');
    assert.match(brief, /"title": "Recipe REST endpoints"/, 'its dependency');
    assert.match(brief, /- add_task_comment: /, 'a reporting tool this session has');
    const listed = text(recipe)
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2).split(':')[0]);
    assert.deepEqual(listed, inSpecOrder(RECIPE_TOOLS.yap!, 'legacy'));
  });
});

describe('MCP Inspector CLI over Streamable HTTP (built artifact)', () => {
  const p = sampleProject();
  let http: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let url: string;
  let target: string[];

  before(async () => {
    http = await startHttpServer(['--project', p.root, '--recipe', 'opus_review']);
    url = `http://127.0.0.1:${http.port}/mcp`;
    // HTTP always needs a bearer token: the Inspector sends it as a header.
    target = [url, '--transport', 'http', '--header', `Authorization: Bearer ${http.token}`];
  });
  after(() => {
    http?.child.kill('SIGTERM');
  });

  test("without the token: the 401 says why, in the Inspector CLI's own output", async () => {
    // --stored-auth-only: fail at once rather than start an interactive OAuth login.
    const e = await failed([url, '--transport', 'http', '--stored-auth-only'], ['--method', 'tools/list'], 3);
    assert.equal(e.code, 'auth_required');
    assert.match(e.message, /missing or wrong bearer token \(Authorization: Bearer <token>/);
  });

  test('tools/list: exact tool set for opus_review', async () => {
    const { tools } = await listTools(target);
    assert.deepEqual(names(tools), inSpecOrder(RECIPE_TOOLS.opus_review!, 'legacy'));
    assert.deepEqual(tools, await listing('opus_review'));
  });

  test('tools/call: a write lands in the database; errors keep their codes', async () => {
    const [commented, missing, hidden] = await Promise.all([
      callTool(target, 'add_task_comment', { task_id: '5', body: 'Reviewed over HTTP', priority: 'high' }),
      callTool(target, 'get_task', { id: '99' }),
      deleteTask8(target),
    ]);
    const c = success(commented).comment;
    assertHas(c, { task_id: 5, body: 'Reviewed over HTTP' });
    const stored = comments(p, 5).find((r) => r.id === c.id);
    assertHas(stored, { body: 'Reviewed over HTTP', author: 'agent', priority: 'high' }, 'signed by the server');
    assert.match(refused(missing, 'not_found'), /task 99 does not exist/);
    assert.match(hidden, /Tool 'delete_task' not found on server/);
    assert.ok(taskRow(p, 8), 'task 8 still exists');
  });

  test('resources/read and prompts/get', async () => {
    const [task, brief] = await Promise.all([
      readResource(target, 'ralph://tasks/5'),
      getPrompt(target, 'task_brief', { task_id: '7' }),
    ]);
    assert.equal(task.mimeType, 'application/json');
    const t = JSON.parse(task.text);
    const row = taskRow(p, 5)!;
    assertHas(t.task, { id: 5, title: row.title, status: row.status });
    assert.deepEqual(
      t.comments.map((c: any) => c.body),
      comments(p, 5).map((c) => c.body),
    );
    const b = text(brief);
    assert.match(b, /^Brief for task #7\./);
    assert.ok(b.includes(`"title": ${JSON.stringify(taskRow(p, 7)!.title)}`), 'the task');
    assert.match(b, /SMTP credentials are coming next week/, 'its comment');
    assert.match(b, /- add_task_comment: /, 'opus_review can comment');
    assert.doesNotMatch(b, /- report_blocker: /, 'opus_review has no report_blocker');
  });
});
