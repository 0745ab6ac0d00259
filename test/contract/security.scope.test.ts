import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { dump, query, sampleProject } from '../helpers/project.js';
import { startRaw } from '../helpers/rawServer.js';
import { startSession, type Session } from '../helpers/server.js';
import { ALL_TOOLS, RECIPE_TOOLS, RECIPES, SIGNAL_VERBS, VALID_ARGS, inSpecOrder } from '../helpers/spec.js';

/**
 * Issue 7, scope: no argument, header or repeated call lets a session reach a tool or a task outside
 * its plan. Table-driven: every recipe (and the full suite) × every tool, in a session launched with
 * `--task 6 --discipline frontend` (task 6: draft, feature search, discipline frontend):
 * - a hidden tool is a JSON-RPC "Unknown tool" and writes nothing;
 * - a visible tool aimed at another task, feature or discipline is refused with out_of_scope and
 *   writes nothing, unless the README allows it (reading other tasks, commenting on them);
 * - the same call on the session's own task, feature and discipline is not refused for scope;
 * - after all of that, the refusals still hold (nothing widened the scope).
 * Then: task_execution and worker without a task, a worker after a claim, and argument tricks sent as
 * raw JSON (duplicate keys, __proto__, _meta, numbers spelled differently).
 */

const OWN = 6;
const OTHER = 4;
const OWN_FEATURE = 'search';
const OWN_DISCIPLINE = 'frontend';

type Args = Record<string, unknown>;
interface Target {
  /**
   * Calls aimed outside the session's scope, and what each must get ('out_of_scope', or 'ok' where the README allows
   * it).
   */
  other: [Args, string][];
  /** The call on the session's own task/feature/discipline, and its expected outcome (never out_of_scope). */
  own: [Args, string];
}

/** Every tool that names a task, feature or discipline; in the order the own-scope calls can all succeed. */
const TARGETS: Record<string, Target> = {
  get_task: { other: [[{ id: OTHER }, 'ok']], own: [{ id: OWN }, 'ok'] },
  get_dependency_details: { other: [[{ id: OTHER }, 'ok']], own: [{ id: OWN }, 'ok'] },
  get_answers: { other: [[{ task_id: OTHER }, 'ok']], own: [{ task_id: OWN }, 'ok'] },
  task_history: { other: [[{ task_id: OTHER }, 'ok']], own: [{ task_id: OWN }, 'ok'] },
  get_feature_learnings: { other: [[{ feature_name: 'recipes' }, 'ok']], own: [{ feature_name: OWN_FEATURE }, 'ok'] },
  enrich_task: {
    other: [[{ id: OTHER, pseudocode: 'hijack' }, 'out_of_scope']],
    own: [{ id: OWN, pseudocode: 'do it' }, 'ok'],
  },
  update_task: {
    other: [[{ id: OTHER, description: 'hijack' }, 'out_of_scope']],
    own: [{ id: OWN, description: 'own' }, 'ok'],
  },
  set_task_status: {
    other: [
      [{ id: OTHER, status: 'done' }, 'out_of_scope'],
      [{ id: 8, status: 'pending' }, 'out_of_scope'],
      [{ id: 999, status: 'done' }, 'out_of_scope'],
    ],
    own: [{ id: OWN, status: 'in_progress' }, 'ok'],
  },
  update_task_context: {
    other: [[{ id: OTHER, hints: 'hijack' }, 'out_of_scope']],
    own: [{ id: OWN, hints: 'own hint' }, 'ok'],
  },
  add_dependency: {
    other: [[{ task_id: OTHER, depends_on: 1 }, 'out_of_scope']],
    own: [{ task_id: OWN, depends_on: 1 }, 'ok'],
  },
  remove_dependency: {
    other: [[{ task_id: OTHER, depends_on: 1 }, 'out_of_scope']],
    own: [{ task_id: OWN, depends_on: 1 }, 'ok'],
  },
  // A note for another task is allowed (SPEC-070 scenario 7); it records the writing session's task.
  add_task_comment: {
    other: [[{ task_id: OTHER, body: 'note for the next task' }, 'ok']],
    own: [{ task_id: OWN, body: 'own note' }, 'ok'],
  },
  update_task_comment: {
    other: [
      [{ task_id: 1, comment_id: 1, body: 'hijack' }, 'out_of_scope'],
      // Own task id, another task's comment: the comment is looked up within the task.
      [{ task_id: OWN, comment_id: 1, body: 'hijack' }, 'not_found'],
    ],
    own: [{ task_id: OWN, comment_id: -1, body: 'edited' }, 'ok'], // -1: the comment add_task_comment just made
  },
  delete_task_comment: {
    other: [
      [{ task_id: 1, comment_id: 1 }, 'out_of_scope'],
      [{ task_id: OWN, comment_id: 2 }, 'not_found'],
    ],
    own: [{ task_id: OWN, comment_id: -1 }, 'ok'],
  },
  update_feature: {
    other: [[{ name: 'recipes', description: 'hijack' }, 'out_of_scope']],
    own: [{ name: OWN_FEATURE, description: 'own' }, 'ok'],
  },
  append_feature_learning: {
    other: [[{ feature_name: 'recipes', text: 'a hijacked lesson about recipes' }, 'out_of_scope']],
    own: [{ feature_name: OWN_FEATURE, text: 'an own lesson about search ranking' }, 'ok'],
  },
  add_feature_context_file: {
    other: [[{ feature_name: 'recipes', file_path: 'src/hijack.ts' }, 'out_of_scope']],
    own: [{ feature_name: OWN_FEATURE, file_path: 'src/search/own.ts' }, 'ok'],
  },
  delete_feature: { other: [[{ name: 'recipes' }, 'out_of_scope']], own: [{ name: OWN_FEATURE }, 'conflict'] }, // its tasks hold it
  update_discipline: {
    other: [[{ name: 'backend', conventions: 'hijack' }, 'out_of_scope']],
    own: [{ name: OWN_DISCIPLINE, conventions: 'own' }, 'ok'],
  },
  delete_discipline: {
    other: [[{ name: 'documentation' }, 'out_of_scope']],
    own: [{ name: OWN_DISCIPLINE }, 'conflict'],
  },
  // The blocker is the own task's; on_task_id only leaves a comment upstream (like add_task_comment).
  report_blocker: { other: [], own: [{ reason: 'waiting for the API', on_task_id: OTHER }, 'ok'] },
  spawn_subtasks: {
    other: [[{ parent_id: OTHER, tasks: [{ title: 'hijack' }] }, 'out_of_scope']],
    own: [{ parent_id: OWN, tasks: [{ title: 'own part' }], skip_parent: false }, 'ok'],
  },
  skip_task: { other: [[{ id: OTHER, reason: 'hijack' }, 'out_of_scope']], own: [{ id: OWN, reason: 'split' }, 'ok'] },
  // (Feature scope follows the own task: after this move, 'auth' is the session's feature. The other
  // features named above are 'recipes', which stays out of scope.)
  move_task_to_feature: {
    other: [[{ id: OTHER, feature: 'auth' }, 'out_of_scope']],
    own: [{ id: OWN, feature: 'auth' }, 'ok'],
  },
  delete_task: { other: [[{ id: 8 }, 'out_of_scope']], own: [{ id: OWN }, 'ok'] },
  // A --task session never claims another task.
  claim_next_task: { other: [[{}, 'conflict']], own: [{}, 'conflict'] },
};

/** The tools that change a task (README: refused outside the session's own task). */
const TASK_WRITES = [
  'enrich_task',
  'update_task',
  'set_task_status',
  'update_task_context',
  'add_dependency',
  'remove_dependency',
  'update_task_comment',
  'delete_task_comment',
  'spawn_subtasks',
  'skip_task',
  'move_task_to_feature',
  'delete_task',
];

const stateFiles = (p: Project) => readFileSync(p.learningsFile, 'utf8') + readFileSync(p.progressFile, 'utf8');
const snapshot = (p: Project) => `${dump(p)}\n${stateFiles(p)}`;

/** Calls `name` and checks the outcome; a refusal must leave the database and the state files unchanged. */
async function expectOutcome(
  s: Session,
  p: Project,
  label: string,
  name: string,
  args: Args,
  expected: string,
): Promise<unknown> {
  const before = snapshot(p);
  const r = await s.client.callTool({ name, arguments: args }).catch((err: unknown) => err);
  let got: string;
  if (r instanceof McpError)
    got = r.code === -32602 && /Unknown tool/.test(r.message) ? 'unknown_tool' : `mcp ${r.code}`;
  else if (r instanceof Error) throw r;
  else
    got = (r as { isError?: boolean }).isError
      ? (r as { structuredContent: { error: { code: string } } }).structuredContent.error.code
      : 'ok';
  assert.equal(got, expected, `${label}: ${name} ${JSON.stringify(args)} → ${got}, expected ${expected}`);
  if (got !== 'ok')
    assert.equal(snapshot(p), before, `${label}: refused ${name} ${JSON.stringify(args)} changed something`);
  return (r as { structuredContent?: unknown }).structuredContent;
}

const ROWS: [string, string[], readonly string[]][] = [
  ...RECIPES.map((r): [string, string[], readonly string[]] => [r, ['--recipe', r], RECIPE_TOOLS[r]!]),
  ['full suite', [], ALL_TOOLS],
];

describe('every recipe × every tool, in a --task session', () => {
  for (const [label, flags, allowed] of ROWS) {
    test(label, async () => {
      const p = sampleProject();
      const s = await startSession(p, [...flags, '--task', String(OWN), '--discipline', OWN_DISCIPLINE]);
      try {
        const visible = await s.toolNames();
        assert.deepEqual(visible, inSpecOrder(allowed), 'tools/list is the recipe');

        // Hidden: unknown, whatever the arguments, and nothing written.
        for (const name of ALL_TOOLS.filter((t) => !visible.includes(t))) {
          await expectOutcome(s, p, label, name, TARGETS[name]?.own[0] ?? VALID_ARGS[name], 'unknown_tool');
          await expectOutcome(s, p, label, name, TARGETS[name]?.other[0]?.[0] ?? VALID_ARGS[name], 'unknown_tool');
        }

        const scoped = Object.keys(TARGETS).filter((t) => visible.includes(t));
        // Out of scope, twice each (a repeated call is refused the same way).
        const refusals = async (phase: string) => {
          for (const name of scoped) {
            for (const [args, expected] of TARGETS[name]!.other) {
              if (expected === 'ok') continue; // allowed writes are made once, below
              await expectOutcome(s, p, `${label} (${phase})`, name, args, expected);
              await expectOutcome(s, p, `${label} (${phase}, again)`, name, args, expected);
            }
          }
        };
        await refusals('before');
        for (const name of scoped) {
          for (const [args, expected] of TARGETS[name]!.other)
            if (expected === 'ok') await expectOutcome(s, p, label, name, args, 'ok');
        }

        // In scope: the own task, feature and discipline (in an order where each succeeds).
        let ownComment: number | undefined;
        for (const name of scoped.filter((t) => t !== 'delete_task')) {
          const [args, expected] = TARGETS[name]!.own;
          const resolved = args.comment_id === -1 ? { ...args, comment_id: ownComment } : args;
          if (args.comment_id === -1 && ownComment === undefined) continue; // no add_task_comment in this recipe
          const out = (await expectOutcome(s, p, `${label} (own)`, name, resolved, expected)) as
            | { comment?: { id: number } }
            | undefined;
          if (name === 'add_task_comment') ownComment = out?.comment?.id;
        }
        // Nothing above widened the scope (writes, blockers, splits, the own task's move to another feature).
        await refusals('after');
        if (visible.includes('delete_task')) {
          await expectOutcome(s, p, `${label} (own)`, 'delete_task', TARGETS.delete_task!.own[0], 'ok');
          assert.deepEqual(query(p, 'SELECT id FROM tasks WHERE id = ?', OWN), [], 'own task deleted');
          for (const [args, expected] of TARGETS.set_task_status!.other)
            await expectOutcome(s, p, `${label} (own task deleted)`, 'set_task_status', args, expected);
        }
      } finally {
        await s.close();
      }
    });
  }
});

describe('own-task-only recipes without a task, and a worker after its claim', () => {
  for (const recipe of ['task_execution', 'worker']) {
    test(`${recipe} without --task changes no task, whatever id it names`, async () => {
      const p = sampleProject();
      const s = await startSession(p, ['--recipe', recipe]);
      try {
        const visible = await s.toolNames();
        let checked = 0;
        for (const name of TASK_WRITES.filter((t) => visible.includes(t))) {
          const target = TARGETS[name]!;
          for (const [args] of [...target.other, target.own]) {
            if (args.comment_id === -1) continue;
            await expectOutcome(s, p, recipe, name, args, 'out_of_scope');
            checked++;
          }
        }
        assert.ok(checked >= 5, `${checked} calls checked`);
        // report_blocker needs the session's own task.
        await expectOutcome(s, p, recipe, 'report_blocker', { reason: 'x' }, 'invalid_argument');
      } finally {
        await s.close();
      }
    });
  }

  test('worker: after claiming, only the claimed task may change; a second claim is refused while it is in progress', async () => {
    const p = sampleProject();
    const s = await startSession(p, ['--recipe', 'worker', '--discipline', 'backend']);
    try {
      const claimed = await s.ok('claim_next_task');
      const own: number = claimed.task.id;
      assert.equal(own, 5, 'the critical, ready backend task');
      for (let i = 0; i < 2; i++) {
        await expectOutcome(s, p, 'worker', 'set_task_status', { id: OTHER, status: 'done' }, 'out_of_scope');
        await expectOutcome(s, p, 'worker', 'update_task_context', { id: 3, hints: 'hijack' }, 'out_of_scope');
        await expectOutcome(
          s,
          p,
          'worker',
          'add_feature_context_file',
          { feature_name: 'recipes', file_path: 'src/x.ts' },
          'out_of_scope',
        );
        await expectOutcome(s, p, 'worker', 'claim_next_task', {}, 'conflict');
        await expectOutcome(s, p, 'worker', 'claim_next_task', { discipline: 'frontend' }, 'conflict');
      }
      await expectOutcome(s, p, 'worker', 'update_task_context', { hints: 'own' }, 'ok');
      assert.equal(query<{ hints: string }>(p, 'SELECT hints FROM tasks WHERE id = ?', own)[0]!.hints, 'own');
    } finally {
      await s.close();
    }
  });
});

describe('feature scope once the own task is gone', () => {
  test('after deleting its own task, a session still changes no other feature (scope fails closed)', async () => {
    const p = sampleProject();
    const s = await startSession(p, ['--task', String(OWN)]); // the full suite: delete_task is visible
    try {
      await expectOutcome(
        s,
        p,
        'deleted',
        'update_feature',
        { name: 'recipes', description: 'hijack' },
        'out_of_scope',
      );
      await expectOutcome(s, p, 'deleted', 'delete_task', { id: OWN }, 'ok');
      await expectOutcome(
        s,
        p,
        'deleted',
        'update_feature',
        { name: 'recipes', description: 'hijack' },
        'out_of_scope',
      );
      await expectOutcome(
        s,
        p,
        'deleted',
        'add_feature_context_file',
        { feature_name: 'auth', file_path: 'src/hijack.ts' },
        'out_of_scope',
      );
    } finally {
      await s.close();
    }
  });
});

describe('argument tricks, as raw JSON-RPC (a yap session with --task 6)', () => {
  test('duplicate keys, __proto__, _meta, numbers spelled differently, ids as strings: never another task', async () => {
    const p = sampleProject();
    const raw = await startRaw(['--project', p.root, '--recipe', 'yap', '--task', String(OWN)]);
    try {
      let id = 1000;
      const send = async (argumentsJson: string, meta = '') => {
        const rid = ++id;
        raw.child.stdin!.write(
          `{"jsonrpc":"2.0","id":${rid},"method":"tools/call","params":{${meta}"name":"set_task_status","arguments":${argumentsJson}}}\n`,
        );
        for (let waited = 0; !raw.responses.has(rid); waited += 10) {
          if (waited > 5000) throw new Error(`no answer to ${argumentsJson}`);
          await new Promise((r) => setTimeout(r, 10));
        }
        const res = raw.responses.get(rid);
        if (res.error) return `jsonrpc ${res.error.code}`;
        return res.result.isError
          ? res.result.structuredContent.error.code
          : `ok #${res.result.structuredContent.task.id}`;
      };
      const before = dump(p);
      const cases: [string, string, string?][] = [
        [`{"id": ${OWN}, "id": ${OTHER}, "status": "done"}`, 'out_of_scope'], // the last key wins, and it is checked
        [`{"id": ${OTHER}.0, "status": "done"}`, 'out_of_scope'],
        [`{"id": 4e0, "status": "done"}`, 'out_of_scope'],
        [`{"id": "${OTHER}", "status": "done"}`, 'invalid_argument'],
        [`{"id": [${OTHER}], "status": "done"}`, 'invalid_argument'],
        [`{"id": {"valueOf": ${OTHER}}, "status": "done"}`, 'invalid_argument'],
        [`{"id": -${OWN}, "status": "done"}`, 'invalid_argument'],
        [`{"id": ${OTHER}, "task_id": ${OWN}, "status": "done"}`, 'invalid_argument'],
        [`{"__proto__": {"id": ${OTHER}}, "status": "done"}`, 'invalid_argument'],
        [`{"constructor": {"prototype": {"id": ${OTHER}}}, "status": "done"}`, 'invalid_argument'],
        [
          `{"id": ${OTHER}, "status": "done"}`,
          'out_of_scope',
          `"_meta": {"Ralph-Task": ${OTHER}, "task": ${OTHER}, "progressToken": 1}, `,
        ],
      ];
      for (const [args, expected, meta] of cases) assert.equal(await send(args, meta), expected, args);
      assert.equal(dump(p), before);
      // `__proto__` must not have polluted anything: the next call without an id still means task 6.
      assert.equal(await send('{"status": "pending"}'), `ok #${OWN}`);
      assert.equal(await send(`{"id": ${OWN}.0, "status": "in_progress"}`), `ok #${OWN}`);
      assert.deepEqual(raw.junk, []);
    } finally {
      raw.child.kill();
      await raw.exited;
    }
  });
});

test('every tool of the registry is covered by the table or needs no target', () => {
  // next_tasks reads only, and previews claims, which a --task session cannot make.
  const untargeted = [
    'list_tasks',
    'next_tasks',
    'create_task',
    'search_tasks',
    'list_features',
    'get_feature',
    'create_feature',
    'list_disciplines',
    'get_discipline',
    'create_discipline',
    'get_project_info',
    'get_project_progress',
    'append_learning',
    'read_learnings',
    'append_progress',
    'read_progress',
    'signal_abort',
    // release_task, like the verbs, acts on the session's own task only.
    'release_task',
    // The verbs take no task: they act on the session's own task only.
    ...SIGNAL_VERBS,
  ];
  assert.deepEqual(inSpecOrder([...Object.keys(TARGETS), ...untargeted]), [...ALL_TOOLS]);
});

describe('own-task-only recipes without a task change no feature', () => {
  for (const recipe of ['task_execution', 'worker']) {
    test(`${recipe} without --task (and before any claim)`, async () => {
      const p = sampleProject();
      const s = await startSession(p, ['--recipe', recipe]);
      try {
        await expectOutcome(
          s,
          p,
          recipe,
          'add_feature_context_file',
          { feature_name: 'auth', file_path: 'src/hijack.ts' },
          'out_of_scope',
        );
      } finally {
        await s.close();
      }
    });
  }
});
