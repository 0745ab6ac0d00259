import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { dump, sampleProject, tempDir } from '../helpers/project.js';
import { startRaw } from '../helpers/rawServer.js';
import { runCli } from '../helpers/server.js';

/** Scope where a process is needed: arguments as raw JSON text on stdio; the CLI (the rest: contract/scopeRules). */

test('raw JSON: duplicate keys, __proto__, _meta, numbers spelled otherwise never reach another task', async () => {
  const p = sampleProject();
  const raw = await startRaw(['--project', p.root, '--recipe', 'yap', '--task', '6']);
  try {
    let id = 1000;
    const send = async (argumentsJson: string, meta = '') => {
      const rid = ++id;
      const params = `{${meta}"name":"set_task_status","arguments":${argumentsJson}}`;
      raw.child.stdin!.write(`{"jsonrpc":"2.0","id":${rid},"method":"tools/call","params":${params}}\n`);
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
      ['{"id": 6, "id": 4, "status": "done"}', 'out_of_scope'], // the last key wins, and it is checked
      ['{"id": 4.0, "status": "done"}', 'out_of_scope'],
      ['{"id": 4e0, "status": "done"}', 'out_of_scope'],
      ['{"id": "4", "status": "done"}', 'invalid_argument'],
      ['{"id": [4], "status": "done"}', 'invalid_argument'],
      ['{"id": {"valueOf": 4}, "status": "done"}', 'invalid_argument'],
      ['{"id": -6, "status": "done"}', 'invalid_argument'],
      ['{"id": 4, "task_id": 6, "status": "done"}', 'invalid_argument'],
      ['{"__proto__": {"id": 4}, "status": "done"}', 'invalid_argument'],
      ['{"constructor": {"prototype": {"id": 4}}, "status": "done"}', 'invalid_argument'],
      ['{"id": 4, "status": "done"}', 'out_of_scope', '"_meta": {"Ralph-Task": 4, "task": 4, "progressToken": 1}, '],
    ];
    for (const [args, expected, meta] of cases) assert.equal(await send(args, meta), expected, args);
    assert.equal(dump(p), before);
    // `__proto__` polluted nothing: a call without an id still means task 6.
    assert.equal(await send('{"status": "pending"}'), 'ok #6');
    assert.equal(await send('{"id": 6.0, "status": "in_progress"}'), 'ok #6');
    assert.deepEqual(raw.junk, []);
  } finally {
    raw.child.kill();
    await raw.exited;
  }
});

test('a --context without a recipe is refused (never the full suite); config passes --context, --session-id on', () => {
  const p = sampleProject();
  const file = join(tempDir(), 'context.json');
  writeFileSync(file, JSON.stringify({ session_id: 's-2' }));
  const r = runCli(['--project', p.root, '--context', file]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /field "recipe" is required/);
  writeFileSync(file, JSON.stringify({ recipe: 'ramble', feature: 'auth', disabled_tools: ['create_feature'] }));
  const cfg = JSON.parse(runCli(['config', '--project', p.root, '--context', file, '--session-id', 'ramble-1']).stdout);
  const args: string[] = cfg.mcpServers.ralph.args;
  assert.equal(args[args.indexOf('--context') + 1], file);
  assert.equal(args[args.indexOf('--session-id') + 1], 'ramble-1');
});
