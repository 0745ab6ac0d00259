import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { makeRefused, useSession, useTwoSessions, type AnyRow } from '../helpers/assertions.js';
import { dump } from '../helpers/project.js';

/**
 * Integration tests for append_learning / read_learnings (.ralph/learnings.txt) and append_progress /
 * read_progress (.ralph/progress.txt) through the real built server. Files are read back with fs.
 */

const HEADER = (who: string) =>
  new RegExp(`^## \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z · ${who.replace(/[#]/g, '\\#')}\\n`);
const read = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '<missing>');

const PAIRS = [
  {
    which: 'learnings',
    append: 'append_learning',
    read: 'read_learnings',
    file: (p: Project) => p.learningsFile,
    rel: '.ralph/learnings.txt',
  },
  {
    which: 'progress',
    append: 'append_progress',
    read: 'read_progress',
    file: (p: Project) => p.progressFile,
    rel: '.ralph/progress.txt',
  },
] as const;

/** A refused call must change neither the database nor either state file. */
const refused = makeRefused({
  snapshot: (p) => [dump(p), read(p.learningsFile), read(p.progressFile)],
  what: 'something',
});

for (const pair of PAIRS) {
  describe(`${pair.append} and ${pair.read}`, () => {
    const entries: string[] = [];
    const ctx = useSession();

    test(`${pair.append} appends one timestamped entry to ${pair.rel}`, async () => {
      assert.equal(read(pair.file(ctx.p)), '', 'init leaves an empty file');
      const dbBefore = dump(ctx.p);
      const r = await ctx.s.ok(pair.append, { text: 'Run the migrations before the API tests.' });
      assert.equal(r.file, pair.rel);
      assert.match(r.entry, HEADER('ralph-mcp'));
      assert.ok(r.entry.endsWith('\nRun the migrations before the API tests.\n\n'), JSON.stringify(r.entry));
      assert.equal(r.bytes, Buffer.byteLength(r.entry, 'utf8'));
      const stamp = /^## (\S+) /.exec(r.entry)![1]!;
      assert.ok(Math.abs(Date.now() - Date.parse(stamp)) < 120_000, `header stamp ${stamp} is recent`);
      assert.equal(read(pair.file(ctx.p)), r.entry, 'the file holds exactly the entry');
      assert.equal(dump(ctx.p), dbBefore, 'state files are not in the database');
      entries.push(r.entry);
    });

    test('later entries are appended after the earlier ones, never replacing them', async () => {
      const r = await ctx.s.ok(pair.append, { text: '  Second entry.\r\nIt has two lines; “unicode” too ✓.  ' });
      assert.match(r.entry, HEADER('ralph-mcp'));
      assert.ok(r.entry.endsWith('\nSecond entry.\nIt has two lines; “unicode” too ✓.\n\n'), JSON.stringify(r.entry));
      assert.equal(r.bytes, Buffer.byteLength(r.entry, 'utf8'));
      entries.push(r.entry);
      assert.equal(read(pair.file(ctx.p)), entries.join(''));
      const other = PAIRS.find((x) => x.which !== pair.which)!;
      assert.equal(read(other.file(ctx.p)), '', `the other state file (${other.rel}) is untouched`);
    });

    test('a line that looks like a header does not split the entry', async () => {
      const r = await ctx.s.ok(pair.append, { text: 'Quoted from the log:\n## 2026-01-01T00:00:00Z · fake\nend' });
      entries.push(r.entry);
      assert.equal(read(pair.file(ctx.p)), entries.join(''));
      const last = await ctx.s.ok(pair.read, { last: 1 });
      assert.equal(last.content, r.entry);
      assert.equal(last.entry_count, 3);
    });

    test(`${pair.read} returns the whole file, or with last: 1 only the last entry`, async () => {
      const all = await ctx.s.ok(pair.read, {});
      assert.deepEqual(all, {
        file: pair.rel,
        content: read(pair.file(ctx.p)),
        entry_count: entries.length,
        returned_entries: entries.length,
      });
      const last = await ctx.s.ok(pair.read, { last: 1 });
      assert.deepEqual(last, {
        file: pair.rel,
        content: entries[entries.length - 1],
        entry_count: entries.length,
        returned_entries: 1,
      });
      const two = await ctx.s.ok(pair.read, { last: 2 });
      assert.equal(two.content, entries.slice(-2).join(''));
      assert.equal(two.returned_entries, 2);
      const many = await ctx.s.ok(pair.read, { last: 1000 });
      assert.equal(many.content, entries.join(''));
      assert.equal(many.returned_entries, entries.length);
    });

    test('text written by hand before the first header counts as an entry', async () => {
      const file = pair.file(ctx.p);
      const hand = 'Notes Ralph wrote by hand.\nNo header here.\n\n';
      writeFileSync(file, hand + entries.join(''));
      const r = await ctx.s.ok(pair.read, {});
      assert.equal(r.entry_count, entries.length + 1);
      const last = await ctx.s.ok(pair.read, { last: 1 });
      assert.equal(last.content, entries[entries.length - 1]);
      const a = await ctx.s.ok(pair.append, { text: 'After the hand-written notes.' });
      assert.equal(read(file), hand + entries.join('') + a.entry);
    });

    test('empty or oversized text and unknown fields are invalid_argument; nothing is written', async () => {
      await refused(ctx.s, ctx.p, pair.append, { text: '' }, 'invalid_argument');
      await refused(ctx.s, ctx.p, pair.append, { text: ' \n\t ' }, 'invalid_argument');
      await refused(ctx.s, ctx.p, pair.append, {}, 'invalid_argument');
      await refused(ctx.s, ctx.p, pair.append, { text: 42 }, 'invalid_argument');
      await refused(ctx.s, ctx.p, pair.append, { text: 'x'.repeat(8001) }, 'invalid_argument');
      await refused(ctx.s, ctx.p, pair.append, { text: 'ok', who: 'someone' }, 'invalid_argument');
    });

    test(`${pair.read} with a bad last or an unknown field is invalid_argument`, async () => {
      for (const last of [0, -1, 1001, 1.5, '1', null])
        await refused(ctx.s, ctx.p, pair.read, { last }, 'invalid_argument');
      await refused(ctx.s, ctx.p, pair.read, { first: 1 }, 'invalid_argument');
    });

    test('a missing file reads as empty and is created by the next append', async () => {
      const file = pair.file(ctx.p);
      rmSync(file);
      const r = await ctx.s.ok(pair.read, {});
      assert.deepEqual(r, { file: pair.rel, content: '', entry_count: 0, returned_entries: 0 });
      const a = await ctx.s.ok(pair.append, { text: 'Fresh start.' });
      assert.equal(read(file), a.entry);
      const last = await ctx.s.ok(pair.read, { last: 1 });
      assert.equal(last.content, a.entry);
      assert.equal(last.entry_count, 1);
    });
  });
}

describe('state files in a task_execution session (--task 3)', () => {
  const ctx = useSession(['--recipe', 'task_execution', '--task', '3']);

  test('the header names the recipe, discipline and task', async () => {
    const who = 'task_execution · frontend · task #3';
    const l: AnyRow = await ctx.s.ok('append_learning', { text: 'The form library re-renders on every keystroke.' });
    assert.match(l.entry, HEADER(who));
    const g: AnyRow = await ctx.s.ok('append_progress', { text: 'Editor form done; next: e2e tests (task 4).' });
    assert.match(g.entry, HEADER(who));
    assert.equal(read(ctx.p.learningsFile), l.entry);
    assert.equal(read(ctx.p.progressFile), g.entry);
    assert.equal((await ctx.s.ok('read_progress', { last: 1 })).content, g.entry);
    assert.equal((await ctx.s.ok('read_learnings', { last: 1 })).content, l.entry);
  });

  test('empty text is invalid_argument here too', async () => {
    await refused(ctx.s, ctx.p, 'append_learning', { text: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'append_progress', { text: '' }, 'invalid_argument');
  });
});

describe('append_progress from two sessions at once', () => {
  const ctx = useTwoSessions([], ['--recipe', 'task_execution', '--task', '5']);

  test('entries never interleave and none is lost', async () => {
    const calls: Promise<AnyRow>[] = [];
    for (let i = 0; i < 20; i++) {
      calls.push(ctx.a.ok('append_progress', { text: `A${i} ${'a'.repeat(2000)}` }));
      calls.push(ctx.b.ok('append_progress', { text: `B${i} ${'b'.repeat(2000)}` }));
    }
    const results = await Promise.all(calls);
    const content = read(ctx.p.progressFile);
    let total = 0;
    for (const r of results) {
      assert.ok(content.includes(r.entry), 'each entry is in the file, whole');
      total += r.bytes;
    }
    assert.equal(Buffer.byteLength(content, 'utf8'), total, 'nothing but the entries');
    const all = await ctx.a.ok('read_progress', {});
    assert.equal(all.entry_count, 40);
  });
});
