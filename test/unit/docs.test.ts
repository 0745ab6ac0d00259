import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMMANDS } from '../../src/cli/commandTable.js';
import { REPO } from '../helpers/env.js';
import { tempDir } from '../helpers/project.js';

/** scripts/docs.mjs on the repository's docs/, or on `dir`. */
const docs = (args: string[], dir?: string) =>
  spawnSync(process.execPath, [join(REPO, 'scripts', 'docs.mjs'), ...args, ...(dir ? ['--docs', dir] : [])], {
    encoding: 'utf8',
  });

test('docs/tools.md and the tables in docs/reference.md are what the code generates (npm run docs)', () => {
  const r = docs(['--check']);
  assert.equal(r.status, 0, r.stderr);
});

test('a generated page or table that differs from the code fails the check, naming it; npm run docs repairs it', () => {
  const edits: [file: string, from: string, to: string, named: RegExp][] = [
    ['tools.md', '| `get_task` | tasks | read |', '| `get_task` | tasks | write |', /^docs\/tools\.md is not/m],
    ['reference.md', '(default `8765`)', '(default `8766`)', /block cli\)/],
    ['reference.md', '| 8,000 characters |', '| 9,000 characters |', /block limits\)/],
    [
      'reference.md',
      '| `limit` | list_tasks | 1–500 | 50 |',
      '| `limit` | list_tasks | 1–500 | 20 |',
      /block limits\)/,
    ],
    ['reference.md', '8 distinct words searched', '9 distinct words searched', /block bounds\)/],
    ['reference.md', '<!-- end of generated: bounds -->', '', /block bounds\): its markers are missing/],
  ];
  for (const [file, from, to, named] of edits) {
    const dir = tempDir('ralph-docs-');
    cpSync(join(REPO, 'docs'), dir, { recursive: true });
    const text = readFileSync(join(dir, file), 'utf8');
    assert.ok(text.includes(from), `docs/${file} has ${from}`);
    writeFileSync(join(dir, file), text.replace(from, to));
    const r = docs(['--check'], dir);
    assert.equal(r.status, 1, `${file}: ${from} → ${to} passed the check`);
    assert.match(r.stderr, named);
    if (to === '') continue; // a block without its end marker is a person's to put back
    assert.equal(docs([], dir).status, 0);
    assert.equal(readFileSync(join(dir, file), 'utf8'), text, 'npm run docs writes back what the code says');
  }
});

test('commands.ts declares no flag of its own: --help and the reference read one table', () => {
  const source = readFileSync(join(REPO, 'src', 'cli', 'commands.ts'), 'utf8');
  assert.equal(source.match(/\.options?\(/g)?.length, 1, "one .options() call: the table's, in flagsOf");
  const declared = [
    ...source.matchAll(
      /\.command\(\s*(?:'(\w+)'|\['serve', '\$0'\]),\s*COMMANDS\.(\w+)\.describe,\s*\(y\) => flagsOf\(y, '(\w+)'\),/g,
    ),
  ];
  assert.deepEqual(
    declared.map((m) => [m[1] ?? 'serve', m[2], m[3]]),
    Object.keys(COMMANDS).map((c) => [c, c, c]),
    'every command of the table, in its order, with its own description and flags',
  );
  assert.equal(source.match(/\.command\(/g)?.length, Object.keys(COMMANDS).length, 'no command outside the table');
});
