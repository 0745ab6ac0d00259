import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { dump, query, sampleProject, tempDir } from '../helpers/project.js';
import { runCli, startSession, type Session } from '../helpers/server.js';

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

function makeProject(): Project {
  const p = sampleProject();
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

/** Every tool argument that takes paths, as a call carrying `path` (full suite, no task: no scope limits). */
const CARRIERS: [string, (path: string) => Record<string, unknown>][] = [
  [
    'create_task.context_files',
    (path) => ({
      tool: 'create_task',
      feature: 'search',
      discipline: 'backend',
      title: 'Paths',
      context_files: [path],
    }),
  ],
  ['update_task.context_files', (path) => ({ tool: 'update_task', id: 5, context_files: ['src/ok.ts', path] })],
  ['enrich_task.context_files', (path) => ({ tool: 'enrich_task', id: 6, pseudocode: 'do it', context_files: [path] })],
  [
    'spawn_subtasks.tasks[].context_files',
    (path) => ({
      tool: 'spawn_subtasks',
      parent_id: 6,
      tasks: [{ title: 'ok' }, { title: 'part', context_files: [path] }],
    }),
  ],
  [
    'update_task_context.add_context_files',
    (path) => ({ tool: 'update_task_context', id: 5, add_context_files: [path], hints: 'never stored' }),
  ],
  [
    'create_feature.context_files',
    (path) => ({ tool: 'create_feature', name: 'paths', display_name: 'Paths', context_files: [path] }),
  ],
  [
    'create_feature.knowledge_paths',
    (path) => ({ tool: 'create_feature', name: 'paths', display_name: 'Paths', knowledge_paths: [path] }),
  ],
  [
    'update_feature.context_files',
    (path) => ({ tool: 'update_feature', name: 'search', description: 'never stored', context_files: [path] }),
  ],
  [
    'update_feature.knowledge_paths',
    (path) => ({ tool: 'update_feature', name: 'search', knowledge_paths: ['docs/ok.md', path] }),
  ],
  [
    'add_feature_context_file.file_path',
    (path) => ({ tool: 'add_feature_context_file', feature_name: 'search', file_path: path }),
  ],
];

const split = (call: Record<string, unknown>) => {
  const { tool, ...args } = call;
  return [tool as string, args] as const;
};

describe('every path argument × every trick is refused and writes nothing', () => {
  let p: Project;
  let s: Session;
  before(async () => {
    p = makeProject();
    s = await startSession(p);
  });
  after(() => s.close());

  for (const [carrier, make] of CARRIERS) {
    test(carrier, async () => {
      const before = dump(p);
      const wrong: string[] = [];
      for (const [path, what] of TRICKS) {
        const [tool, args] = split(make(path));
        const r = await s.call(tool, args);
        const code = r.isError ? (r.structuredContent as { error: { code: string } }).error.code : 'ok';
        if (code !== 'invalid_argument') wrong.push(`${what} ${JSON.stringify(path)}: ${code}`);
      }
      assert.deepEqual(wrong, [], `${carrier}: tricks not refused with invalid_argument`);
      assert.equal(dump(p), before, `${carrier}: a refused call changed the database`);
    });
  }

  test('the refusal names the field and says why', async () => {
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
  });
});

describe('plain names inside the project are accepted and stored in canonical form', () => {
  let p: Project;
  let s: Session;
  before(async () => {
    p = makeProject();
    s = await startSession(p);
  });
  after(() => s.close());

  test('add_feature_context_file and create_task store them as the canonical path', async () => {
    for (const [given, stored] of PLAIN) {
      const r = await s.ok('add_feature_context_file', { feature_name: 'auth', file_path: given });
      assert.equal(r.file_path, stored, given);
    }
    const files = JSON.parse(
      query<{ c: string }>(p, "SELECT context_files AS c FROM features WHERE name = 'auth'")[0]!.c,
    );
    assert.deepEqual(
      files,
      PLAIN.map(([, stored]) => stored),
    );
    const t = await s.ok('create_task', {
      feature: 'auth',
      discipline: 'backend',
      title: 'Plain names',
      context_files: PLAIN.map(([given]) => given),
    });
    assert.deepEqual(
      t.task.context_files,
      PLAIN.map(([, stored]) => stored),
    );
  });

  test('a project reached through a symlinked --project is checked against its real location', async () => {
    const alias = join(tempDir('ralph-alias-'), 'project');
    symlinkSync(p.root, alias);
    const s2 = await startSession({ ...p, root: alias }, []);
    try {
      assert.equal(
        (await s2.ok('add_feature_context_file', { feature_name: 'auth', file_path: 'inside-link/y.ts' })).added,
        true,
      );
      assert.equal(
        (await s2.fail('add_feature_context_file', { feature_name: 'auth', file_path: 'link-out/y.ts' })).code,
        'invalid_argument',
      );
      assert.equal(
        (await s2.fail('add_feature_context_file', { feature_name: 'auth', file_path: 'up/project/src/y.ts' })).code,
        'invalid_argument',
        'back in through the parent: still a symlink out',
      );
    } finally {
      await s2.close();
    }
  });

  test('all or nothing: one bad path in a list refuses the whole call', async () => {
    const before = dump(p);
    const err = await s.fail('update_task', {
      id: 5,
      title: 'never stored',
      context_files: ['src/a.ts', 'src/b.ts', '../c.ts'],
    });
    assert.equal(err.code, 'invalid_argument');
    assert.equal(dump(p), before);
  });
});

describe('--context FILE', () => {
  test('may live outside the project (Ralph writes it, e.g. in a temp folder), and cannot carry paths', async () => {
    const p = makeProject();
    const file = join(tempDir('ralph-ctx-'), 'context.json');
    writeFileSync(file, JSON.stringify({ recipe: 'task_execution', task_id: 3 }));
    const s = await startSession(p, ['--context', file]);
    try {
      assert.match(s.client.getInstructions() ?? '', /Task: #3/);
      // The session's path checks are the same as ever.
      assert.equal(
        (await s.fail('update_task_context', { add_context_files: ['link-out/x'] })).code,
        'invalid_argument',
      );
    } finally {
      await s.close();
    }
    for (const field of ['context_files', 'project', 'db']) {
      writeFileSync(file, JSON.stringify({ recipe: 'yap', [field]: ['../x'] }));
      const r = runCli(['--project', p.root, '--context', file]);
      assert.equal(r.status, 2, field);
      assert.match(r.stderr, new RegExp(`unknown field\\(s\\) "${field}"`));
    }
  });
});
