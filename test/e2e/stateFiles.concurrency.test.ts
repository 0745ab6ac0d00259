import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { splitEntries } from '../../src/domain/stateFiles.js';
import { sampleProject } from '../helpers/project.js';
import { startSession } from '../helpers/server.js';

test('two sessions appending at once never interleave inside an entry', async () => {
  const project = sampleProject();
  const a = await startSession(project, ['--recipe', 'task_execution', '--task', '3']);
  const b = await startSession(project, ['--recipe', 'task_execution', '--task', '5']);
  const body = (who: string, i: number) => `${who} entry ${i}\n${`${who}-${i} `.repeat(300)}\nend ${who} ${i}`;
  try {
    await Promise.all([
      ...Array.from({ length: 60 }, (_, i) => a.ok('append_progress', { text: body('A', i) })),
      ...Array.from({ length: 60 }, (_, i) => b.ok('append_progress', { text: body('B', i) })),
    ]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
  const entries = splitEntries(readFileSync(project.progressFile, 'utf8'));
  assert.equal(entries.length, 120);
  const seen = new Set<string>();
  for (const e of entries) {
    const m = /^## \S+ · task_execution · (frontend|backend) · task #(3|5)\n([AB]) entry (\d+)\n/.exec(e);
    assert.ok(m, `malformed entry: ${e.slice(0, 80)}`);
    const [, , , who, i] = m;
    // An entry may end with one extra blank line: the "does the file end in a newline?" check before an
    // append can read a byte of another process's write in flight (see appendEntry). The text is whole.
    assert.equal(
      e.replace(/\n+$/, '\n\n'),
      `${e.slice(0, e.indexOf('\n') + 1)}${body(who!, Number(i))}\n\n`,
      'entry is whole',
    );
    seen.add(`${who}${i}`);
  }
  assert.equal(seen.size, 120);
});
