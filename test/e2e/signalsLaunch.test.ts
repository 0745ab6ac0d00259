import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { after, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import {
  HEAD_FIXTURES_DIR,
  HEAD_FIXTURE_SKIP,
  SERVER_RUNTIME,
  launchOfRuntime,
  serverCommand,
} from '../helpers/env.js';
import { inspect } from '../helpers/inspector.js';
import { dump, fixtureProject, query, sampleProject } from '../helpers/project.js';
import { startRalphApi, type StandIn } from '../helpers/ralphSignalApi.js';
import { runCli, startSession } from '../helpers/server.js';
import { SIGNAL_VERBS } from '../helpers/spec.js';

/**
 * ralph-mcp launched the way Ralph launches its signal server: no flags, Ralph's environment
 * (RALPH_TASK_ID, RALPH_SESSION_ID, RALPH_DB_PATH, RALPH_API_PORT). Through the SDK client and the MCP
 * Inspector CLI; forwarding to a stand-in of Ralph's API; and a replay of the same calls written
 * directly and through Ralph's app, which must leave the same rows. The launch, its refusals and the
 * forwarding (the runtime's HTTP client) run under every runtime; the rest is the server's logic: ONCE.
 */
const ONCE = SERVER_RUNTIME === 'node' ? false : 'not about the runtime: stated under Node';

const TASK = 9;
const SESSION = '5d0c8a5e-8f0b-4d6a-9a51-2f7d3c1e9b42'; // a uuid, as Ralph makes them
const ralphEnv = (p: Project, extra: Record<string, string> = {}) => ({
  RALPH_TASK_ID: String(TASK),
  RALPH_SESSION_ID: SESSION,
  RALPH_DB_PATH: p.dbPath,
  ...extra,
});

const clients: Client[] = [];
const standIns: StandIn[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(standIns.map((s) => s.close()));
});

/** The SDK client on the server (under SERVER_RUNTIME) with no arguments, only the environment. */
async function launch(env: Record<string, string>) {
  const transport = new StdioClientTransport({
    ...serverCommand([]),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const client = new Client({ name: 'ralph-signals-tests', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, call, stderr: () => stderr };
}

const errorOf = (r: CallToolResult) => (r.structuredContent as { error: { code: string; message: string } }).error;
const verbs = async (s: { client: Client }) => (await s.client.listTools()).tools.map((t) => t.name);

/** The same calls, in order, for the forwarding and replay tests. */
const CALLS: [string, Record<string, unknown>][] = [
  ['done', { summary: ' Collections CRUD shipped ' }],
  ['partial', { summary: 'List view', remaining: 'Ordering' }],
  ['stuck', { reason: 'Dev server down' }],
  ['ask', { question: 'Nested?', options: ['yes', 'no'], preferred: 'no', blocking: true }],
  ['flag', { what: 'Flaky test', severity: 'blocking', category: 'performance' }],
  ['learned', { text: 'Lazy loading', kind: 'decision', rationale: '  Big libraries  ' }],
  ['learned', { text: 'Use vitest', kind: 'convention', scope: 'feature' }],
  ['suggest', { what: 'Split sidebar', kind: 'split', why: 'Too big', feature: 'collections' }],
  ['blocked', { on: 'API keys', kind: 'external', detail: 'ops' }],
];

describe("launched as Ralph's signal server", { skip: HEAD_FIXTURE_SKIP }, () => {
  test('SDK client, direct mode: exactly the eight verbs; a verb writes its row', async () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const s = await launch(ralphEnv(p));
    assert.deepEqual(await verbs(s), [...SIGNAL_VERBS]);
    const r = await s.call('done', { summary: 'shipped' });
    assert.equal(r.isError, undefined);
    const sql = "SELECT task_id, session_id, verb, summary FROM task_signals WHERE session_id = ? AND verb = 'done'";
    assert.deepEqual(query(p, sql, SESSION), [
      { task_id: TASK, session_id: SESSION, verb: 'done', summary: 'shipped' },
    ]);
    assert.match(s.stderr(), /"recipe":"signals"/);
  });

  test('MCP Inspector CLI: exactly the eight verbs, and a call', { skip: ONCE }, async () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    // The Inspector gives a stdio server only a default environment plus what `-e KEY=VALUE` names.
    const vars = Object.entries(ralphEnv(p)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const server = [...vars, ...Object.values(serverCommand([])).flat()];
    const listed = await inspect(server, ['--method', 'tools/list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name),
      [...SIGNAL_VERBS],
    );
    const called = await inspect(server, [
      '--method',
      'tools/call',
      '--tool-name',
      'stuck',
      '--tool-arg',
      'reason=no network',
    ]);
    assert.equal(called.code, 0, called.stderr);
    assert.equal(JSON.parse(called.stdout).structuredContent.verb, 'stuck');
    assert.equal(
      query(p, "SELECT count(*) AS n FROM task_signals WHERE session_id = ? AND verb = 'stuck'", SESSION)[0]!.n,
      1,
    );
  });

  test('a missing or malformed variable, or a flag that disagrees: exit 2, one line naming it', () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const env = ralphEnv(p);
    const cases: [Record<string, string>, string[], RegExp][] = [
      [{ RALPH_TASK_ID: '9' }, [], /RALPH_SESSION_ID, RALPH_DB_PATH are not set/],
      [{ RALPH_TASK_ID: '9', RALPH_SESSION_ID: SESSION }, [], /RALPH_DB_PATH is not set/],
      [{ ...env, RALPH_TASK_ID: 'nine' }, [], /RALPH_TASK_ID must be a positive integer task id, got "nine"/],
      [{ ...env, RALPH_TASK_ID: '999' }, [], /unknown task id 999/],
      [{ ...env, RALPH_SESSION_ID: 'has space' }, [], /RALPH_SESSION_ID must be/],
      [{ ...env, RALPH_DB_PATH: 'relative/ralph.db' }, [], /RALPH_DB_PATH must be an absolute path/],
      [{ ...env, RALPH_DB_PATH: `${p.ralphDir}/db/missing.db` }, [], /database not found at .*missing\.db/],
      [{ ...env, RALPH_API_PORT: '99999' }, [], /RALPH_API_PORT must be a port number 1-65535, got "99999"/],
      [env, ['--task', '4'], /--task "4" disagrees with RALPH_TASK_ID="9"/],
      [env, ['--recipe', 'task_execution'], /--recipe "task_execution" disagrees with/],
      [env, ['--session-id', 'other'], /--session-id "other" disagrees with RALPH_SESSION_ID/],
    ];
    for (const [vars, flags, expected] of cases) {
      const r = runCli(flags, vars);
      assert.equal(r.status, 2, `${JSON.stringify(vars)} ${flags.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, expected);
    }
    // Flags that agree are fine.
    assert.equal(runCli(['plan', '--task', '9', '--session-id', SESSION], env).status, 0);
  });

  test("forward mode: the exact requests to Ralph's API, its answers as results, and no row written by ralph-mcp", async () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const before = dump(p);
    const ours = () => query(p, "SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'ralph_mcp_%'")[0]!.n;
    const oursBefore = ours();
    const api = await startRalphApi({
      answer: (r) => {
        const verb = r.body?.verb;
        if (verb === 'flag')
          return { status: 500, body: JSON.stringify({ error: 'Failed to insert signal: database is locked' }) };
        if (verb === 'ask')
          return {
            status: 422,
            body: 'Failed to deserialize the JSON body into the target type',
            contentType: 'text/plain; charset=utf-8',
          };
        return undefined; // Ralph's own answers (no database given: success without writing)
      },
    });
    standIns.push(api);
    const s = await launch(ralphEnv(p, { RALPH_API_PORT: String(api.port) }));
    assert.deepEqual(
      api.requests,
      [{ method: 'POST', path: '/api/set-db-path', contentType: 'application/json', body: { db_path: p.dbPath } }],
      'set-db-path once, at start',
    );

    const done = await s.call('done', { summary: ' shipped ' });
    assert.equal(done.isError, undefined);
    assert.deepEqual(done.structuredContent, {
      message: 'Signal recorded: done',
      verb: 'done',
      task_id: TASK,
      signal_id: null,
      next: (done.structuredContent as { next: string }).next,
    });
    const learned = await s.call('learned', { text: 'Lazy loading', kind: 'decision', scope: 'feature' });
    assert.equal(learned.isError, undefined);

    const flag = await s.call('flag', { what: 'x', severity: 'info', category: 'bug' });
    assert.equal(flag.isError, true);
    assert.equal(errorOf(flag).code, 'unavailable');
    assert.match(errorOf(flag).message, /HTTP 500\): Failed to insert signal: database is locked/);
    const ask = await s.call('ask', { question: 'q?', blocking: false });
    assert.equal(ask.isError, true);
    assert.equal(errorOf(ask).code, 'invalid_argument');
    assert.match(errorOf(ask).message, /HTTP 422\): Failed to deserialize the JSON body/);

    const sent = api.requests.length;
    const bad = await s.call('flag', { what: 'x', severity: 'critical', category: 'bug' });
    assert.equal(errorOf(bad).code, 'invalid_argument');
    assert.equal(api.requests.length, sent, 'an invalid call is refused here, never sent');

    const signal = (verb: string, payload: object) => [
      '/api/task-signal',
      'application/json',
      { task_id: TASK, session_id: SESSION, verb, payload },
    ];
    assert.deepEqual(
      api.requests.slice(1).map((r) => [r.path, r.contentType, r.body]),
      [
        signal('done', { summary: 'shipped' }),
        signal('learned', { text: 'Lazy loading', kind: 'decision', scope: 'subsystem' }),
        signal('flag', { what: 'x', severity: 'info', category: 'bug' }),
        signal('ask', { question: 'q?', blocking: false }),
      ],
    );
    await s.client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined);
    assert.equal(dump(p), before, "Ralph's tables untouched by ralph-mcp");
    assert.equal(ours(), oursBefore, 'not even a table or audit row of ours');
  });

  test("forward mode: Ralph's app unreachable at start fails the launch closed", () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const r = runCli([], ralphEnv(p, { RALPH_API_PORT: '1' }));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^ralph-mcp: error: RALPH_API_PORT=1: Ralph's app did not accept \/api\/set-db-path/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  test('forward mode: a 307/308 is never followed; neither the database path nor a signal goes elsewhere', async () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const elsewhere = await startRalphApi();
    standIns.push(elsewhere);
    const to = (path: string) => ({ location: `http://127.0.0.1:${elsewhere.port}${path}` });
    // At start: set-db-path redirected, so the launch fails closed.
    const atStart = await startRalphApi({ answer: (r) => ({ status: 307, body: '', headers: to(r.path) }) });
    standIns.push(atStart);
    // Not runCli: spawnSync would block this process, and with it the stand-in's answers.
    const r = await new Promise<{ status: number | null; stderr: string }>((done) => {
      const cmd = serverCommand([]);
      const child = execFile(cmd.command, cmd.args, {
        env: { ...process.env, ...ralphEnv(p, { RALPH_API_PORT: String(atStart.port) }) },
      });
      let stderr = '';
      child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      child.stdin?.end();
      child.on('close', (status) => done({ status, stderr }));
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /did not accept \/api\/set-db-path \(answered HTTP 307, a redirect to ".*", which is not/);
    // Later: each signal redirected is refused, not re-sent.
    const later = await startRalphApi({
      answer: (q) => (q.path === '/api/task-signal' ? { status: 308, body: '', headers: to(q.path) } : undefined),
    });
    standIns.push(later);
    const s = await launch(ralphEnv(p, { RALPH_API_PORT: String(later.port) }));
    const done = await s.call('done', { summary: 'secret summary' });
    assert.equal(done.isError, true);
    assert.equal(errorOf(done).code, 'unavailable');
    assert.match(errorOf(done).message, /HTTP 308, a redirect to .*which is not followed/);
    assert.deepEqual(elsewhere.requests, [], 'nothing reached the address a redirect named');
    assert.deepEqual(
      later.requests.map((q) => q.path),
      ['/api/set-db-path', '/api/task-signal'],
    );
  });

  test("config on a normalized task session emits ralph-signals in place of Ralph's Bun script, and that entry serves the verbs", async () => {
    const p = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const config = (project: Project, ...flags: string[]) =>
      runCli(['config', '--project', project.root, '--recipe', ...flags]);
    const r = config(p, 'task_execution', '--task', String(TASK), '--api-port', '4321');
    assert.equal(r.status, 0, r.stderr);
    type Entry = { command: string; args: string[]; env?: Record<string, string> };
    const servers = JSON.parse(r.stdout).mcpServers as Record<string, Entry>;
    const entry = servers['ralph-signals']!;
    assert.deepEqual([entry.command, entry.args], Object.values(launchOfRuntime()));
    const sessionId = servers.ralph!.args[servers.ralph!.args.indexOf('--session-id') + 1];
    assert.deepEqual(
      entry.env,
      { RALPH_TASK_ID: String(TASK), RALPH_SESSION_ID: sessionId, RALPH_DB_PATH: p.dbPath, RALPH_API_PORT: '4321' },
      'one session id for both entries',
    );
    const { RALPH_API_PORT: _port, ...direct } = entry.env!;
    assert.deepEqual(await verbs(await launch(direct)), [...SIGNAL_VERBS]);
    // Not for a legacy project (Ralph's head never opens one), nor for a session without a task.
    for (const other of [
      config(fixtureProject('04-desktop-dev.db'), 'task_execution', '--task', '9'),
      config(p, 'yap'),
    ])
      assert.equal(JSON.parse(other.stdout).mcpServers['ralph-signals'], undefined);
  });

  test("a replay in direct mode and through Ralph's app leaves the same rows (ids, times and session numbers aside)", {
    skip: ONCE,
  }, async () => {
    const direct = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const forwarded = fixtureProject('04-desktop-dev.db', HEAD_FIXTURES_DIR);
    const api = await startRalphApi({ dbPath: forwarded.dbPath });
    standIns.push(api);
    const a = await launch(ralphEnv(direct));
    const b = await launch(ralphEnv(forwarded, { RALPH_API_PORT: String(api.port) }));
    for (const [verb, args] of CALLS) {
      const ra = await a.call(verb, args);
      const rb = await b.call(verb, args);
      assert.equal(ra.isError, undefined, `${verb} direct: ${JSON.stringify(ra.structuredContent)}`);
      assert.equal(rb.isError, undefined, `${verb} forwarded: ${JSON.stringify(rb.structuredContent)}`);
    }
    const signals = (p: Project) =>
      query<Record<string, unknown>>(p, 'SELECT * FROM task_signals WHERE session_id = ? ORDER BY id', SESSION).map(
        ({ id: _id, created: _c, ...rest }) => rest,
      );
    const session = (p: Project) =>
      query<Record<string, unknown>>(p, 'SELECT * FROM agent_sessions WHERE id = ?', SESSION).map(
        ({ session_number: _n, started: _s, ended: _e, ...rest }) => rest,
      );
    assert.equal(signals(direct).length, CALLS.length);
    assert.deepEqual(signals(direct), signals(forwarded));
    assert.deepEqual(session(direct), session(forwarded));
    assert.equal(session(direct).length, 1);
  });
});

describe('questions: a person answers with `ralph-mcp answer`; task_brief shows what is still open', () => {
  for (const generation of ['legacy', 'normalized'] as const) {
    test(generation, { skip: ONCE }, async () => {
      const p = sampleProject(generation);
      const asker = await startSession(p, ['--recipe', 'signals', '--task', '3']);
      const asked = await asker.ok('ask', {
        question: 'Grams or ounces?',
        options: ['grams', 'ounces'],
        blocking: true,
      });
      await asker.close();
      const reader = await startSession(p, ['--recipe', 'task_execution', '--task', '3']);
      try {
        const brief = async () => {
          const prompt = await reader.client.getPrompt({ name: 'task_brief', arguments: {} });
          return String((prompt.messages[0]!.content as { text: string }).text);
        };
        assert.match(
          await brief(),
          /still wait for an answer from a person:\n```json\n\[\n {2}\{\n {4}"question": "Grams or ounces\?"/,
        );
        assert.equal(runCli(['answer', '--project', p.root, '--question', '999999', '--text', 'x']).status, 2);
        const r = runCli(['answer', '--project', p.root, '--question', String(asked.signal_id), '--text', ' grams ']);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /answered question \d+ on task 3: "Grams or ounces\?"/);
        const answers = (await reader.ok('get_answers', {})).questions as { question: string; answer: string }[];
        assert.deepEqual(
          answers.map((q) => [q.question, q.answer]),
          [['Grams or ounces?', 'grams']],
        );
        assert.doesNotMatch(await brief(), /still wait for an answer/);
        assert.deepEqual((await reader.ok('get_task', { id: 3 })).open_questions, []);
      } finally {
        await reader.close();
      }
    });
  }
});
