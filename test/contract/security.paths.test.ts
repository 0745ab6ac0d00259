import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { StartupError } from '../../src/domain/errors.js';
import type { Project } from '../../src/domain/project.js';
import { ralphFeature } from '../helpers/ralphRead.js';
import { tempDir } from '../helpers/project.js';
import { contract, type InProcSession } from './harness.js';
import { unchanged } from './support.js';

/**
 * Issue 7, paths: every path a caller gives (context files, knowledge paths) is confined to the
 * project, through every tool that takes one. Each trick below is refused with invalid_argument, and
 * a refused call writes nothing (the whole database is compared before and after).
 *
 * Decisions tested here (src/domain/paths.ts):
 * - Unicode look-alikes are refused when their NFKC form would be refused (fullwidth '．．／' is '../'
 *   to any tool that normalises Unicode); other non-ASCII names are plain names, stored as given.
 * - A path that does not exist yet is allowed, unless its nearest existing ancestor is (or leads
 *   through) a symbolic link out of the project; dangling links and link loops fail closed.
 * - --context FILE may live outside the project: Ralph, not the agent, names it (src/session/open.ts).
 * On both generations, in-process.
 */

/** Paths that must be refused, with what each one tries. */
const TRICKS: [string, string][] = [
  ['../outside.txt', 'parent'],
  ['src/../../outside.txt', 'parent in the middle'],
  ['..', 'parent itself'],
  ['./..', 'dot then parent'],
  ['a/b/../../../x', 'more parents than segments'],
  ['/etc/passwd', 'absolute'],
  ['//server/share/x', 'UNC with slashes'],
  ['~/notes.md', 'home'],
  ['~root/.ssh/id_rsa', "another user's home"],
  ['src/a\u0000.ts', 'NUL byte'],
  ['src/a\n.ts', 'newline'],
  [' src/a.ts', 'leading space'],
  ['%2e%2e/x', 'URL-encoded ..'],
  ['%2E%2E%2Fx', 'URL-encoded ../ (upper case)'],
  ['%252e%252e/x', 'double-encoded ..'],
  ['..%2fx', 'encoded slash after ..'],
  ['src/%00.ts', 'encoded NUL'],
  ['..\\x', 'Windows parent'],
  ['src\\..\\..\\x', 'Windows separators'],
  ['C:\\Windows\\win.ini', 'Windows drive'],
  ['C:/Windows/win.ini', 'drive with slashes'],
  ['c:x', 'drive-relative'],
  ['\\\\server\\share\\x', 'UNC'],
  ['file:///etc/passwd', 'file URL'],
  ['https://example.com/x', 'URL'],
  ['．．／outside.txt', 'fullwidth ../'],
  ['src/．．／．．／x', 'fullwidth ../ in the middle'],
  ['..／x', 'fullwidth slash after ..'],
  ['＼etc', 'fullwidth backslash'],
  ['～/x', 'fullwidth tilde'],
  ['％２ｅ％２ｅ/x', 'fullwidth percent-encoding'],
  ['link-out/secret.txt', 'symlink to a folder outside'],
  ['link-out', 'the symlink itself'],
  ['file-link', 'symlink to a file outside'],
  ['chain/secret.txt', 'symlink to a symlink to outside'],
  ['up/x', "symlink to the project's parent"],
  ['dangling-out/new.txt', 'dangling symlink pointing outside (could be created later)'],
  ['link-out/newdir/new.ts', 'not-yet-existing file under a symlinked parent'],
  ['loop-a/x', 'symlink loop (cannot be resolved: fail closed)'],
  ['.', 'the project root'],
];

/** Paths that are plain names inside the project: accepted, stored in canonical form. */
const PLAIN: [string, string][] = [
  ['docs/café.md', 'docs/café.md'],
  ['src/ａｐｐ.ts', 'src/ａｐｐ.ts'], // fullwidth letters: NFKC gives src/app.ts, still inside
  ['notes/．hidden', 'notes/．hidden'],
  ['a..b/...', 'a..b/...'],
  ['notes/$HOME.md', 'notes/$HOME.md'],
  ['inside-link/new.ts', 'inside-link/new.ts'], // a symlink that stays inside
  ['./src//deep/./x.ts', 'src/deep/x.ts'],
  ['.ralph/learnings.txt', '.ralph/learnings.txt'],
];

/** The sample project of this generation, with links in and out of it. */
function withLinks(p: Project): Project {
  const outside = tempDir('ralph-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  mkdirSync(join(p.root, 'src'), { recursive: true });
  symlinkSync(outside, join(p.root, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(p.root, 'file-link'));
  symlinkSync(outside, join(p.root, 'hop'));
  symlinkSync('hop', join(p.root, 'chain')); // relative: chain → hop → outside
  symlinkSync('..', join(p.root, 'up'));
  symlinkSync(join(outside, 'not-yet'), join(p.root, 'dangling-out'));
  symlinkSync('loop-b', join(p.root, 'loop-a'));
  symlinkSync('loop-a', join(p.root, 'loop-b'));
  symlinkSync(join(p.root, 'src'), join(p.root, 'inside-link'));
  return p;
}

/** Every tool argument that takes paths: the tool, and its arguments carrying `p` (full suite: no scope limits). */
const CARRIERS: [string, string, (p: string) => Record<string, unknown>][] = [
  [
    'create_task',
    'context_files',
    (p) => ({ feature: 'search', discipline: 'backend', title: 'Paths', context_files: [p] }),
  ],
  ['update_task', 'context_files', (p) => ({ id: 5, context_files: ['src/ok.ts', p] })],
  ['enrich_task', 'context_files', (p) => ({ id: 6, pseudocode: 'do it', context_files: [p] })],
  [
    'spawn_subtasks',
    'tasks[].context_files',
    (p) => ({ parent_id: 6, tasks: [{ title: 'ok' }, { title: 'part', context_files: [p] }] }),
  ],
  ['update_task_context', 'add_context_files', (p) => ({ id: 5, add_context_files: [p], hints: 'never stored' })],
  ['create_feature', 'context_files', (p) => ({ name: 'paths', display_name: 'Paths', context_files: [p] })],
  ['create_feature', 'knowledge_paths', (p) => ({ name: 'paths', display_name: 'Paths', knowledge_paths: [p] })],
  ['update_feature', 'context_files', (p) => ({ name: 'search', description: 'never stored', context_files: [p] })],
  ['update_feature', 'knowledge_paths', (p) => ({ name: 'search', knowledge_paths: ['docs/ok.md', p] })],
  ['add_feature_context_file', 'file_path', (p) => ({ feature_name: 'search', file_path: p })],
];

contract('paths given by a caller are confined to the project', (env) => {
  let s: InProcSession; // the full suite: every tool that takes a path
  before(async () => {
    s = await env.open({}, withLinks(env.sample()));
  });

  test('every path argument × every trick is refused with invalid_argument and writes nothing', async () => {
    const wrong: string[] = [];
    await unchanged(s, async () => {
      for (const [tool, field, make] of CARRIERS) {
        for (const [path, what] of TRICKS) {
          const r = await s.call(tool, make(path));
          const code = r.isError ? (r.structuredContent as { error: { code: string } }).error.code : 'ok';
          if (code !== 'invalid_argument') wrong.push(`${tool}.${field}: ${what} ${JSON.stringify(path)}: ${code}`);
        }
      }
    });
    assert.deepEqual(wrong, [], 'tricks not refused with invalid_argument');
  });

  test('the refusal names the field and says why; one bad path in a list refuses the whole call', async () => {
    await unchanged(s, async () => {
      const err = await s.fail('add_feature_context_file', { feature_name: 'search', file_path: '．．／x' });
      assert.match(
        err.message,
        /^file_path "．．／x" is not allowed: it uses Unicode look-alike characters that normalise to "\.\.\/x" \(it contains '\.\.'\)/,
      );
      assert.match(
        (await s.fail('create_feature', { name: 'p2', display_name: 'P', knowledge_paths: ['link-out/a'] })).message,
        /^knowledge_paths "link-out\/a" resolves outside the project through a symbolic link/,
      );
      assert.match(
        (await s.fail('update_task', { id: 5, context_files: ['file:///etc/passwd'] })).message,
        /starts like a URL/,
      );
      const all = ['src/a.ts', 'src/b.ts', '../c.ts'];
      assert.equal(
        (await s.fail('update_task', { id: 5, title: 'never stored', context_files: all })).code,
        'invalid_argument',
      );
    });
  });

  test('plain names inside the project are accepted and stored in canonical form', async () => {
    const stored = PLAIN.map(([, canonical]) => canonical);
    for (const [given, canonical] of PLAIN) {
      const r = await s.ok('add_feature_context_file', { feature_name: 'auth', file_path: given });
      assert.equal(r.file_path, canonical, given);
    }
    assert.deepEqual(ralphFeature(s.project.dbPath, 'auth')!.context_files, stored);
    const t = await s.ok('create_task', {
      feature: 'auth',
      discipline: 'backend',
      title: 'Plain names',
      context_files: PLAIN.map(([given]) => given),
    });
    assert.deepEqual(t.task.context_files, stored);
  });

  test('a project reached through a symlinked --project is checked against its real location', async () => {
    const p = withLinks(env.sample());
    const alias = join(tempDir('ralph-alias-'), 'project');
    symlinkSync(p.root, alias);
    const aliased = await env.open({ recipe: 'ramble' }, { ...p, root: alias });
    const add = (file_path: string) => ({ feature_name: 'auth', file_path });
    assert.equal((await aliased.ok('add_feature_context_file', add('inside-link/y.ts'))).added, true);
    assert.equal((await aliased.fail('add_feature_context_file', add('link-out/y.ts'))).code, 'invalid_argument');
    assert.equal(
      (await aliased.fail('add_feature_context_file', add('up/project/src/y.ts'))).code,
      'invalid_argument',
      'back in through the parent: still a symlink out',
    );
  });

  test('--context FILE may live outside the project (Ralph writes it), and cannot carry paths', async () => {
    const p = withLinks(env.sample());
    const file = join(tempDir('ralph-ctx-'), 'context.json');
    writeFileSync(file, JSON.stringify({ recipe: 'task_execution', task_id: 3 }));
    const task = await env.open({ context: file }, p);
    assert.match(task.client.getInstructions() ?? '', /Task: #3/);
    // The session's path checks are the same as ever.
    assert.equal(
      (await task.fail('update_task_context', { add_context_files: ['link-out/x'] })).code,
      'invalid_argument',
    );
    for (const field of ['context_files', 'project', 'db']) {
      writeFileSync(file, JSON.stringify({ recipe: 'yap', [field]: ['../x'] }));
      await assert.rejects(env.open({ context: file }, p), (e: Error) => {
        assert.ok(e instanceof StartupError && e.exitCode === 2, String(e));
        assert.match(e.message, new RegExp(`unknown field\\(s\\) "${field}"`));
        return true;
      });
    }
  });
});
