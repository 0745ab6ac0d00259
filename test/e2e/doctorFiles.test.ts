import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { serverCommand } from '../helpers/env.js';
import { emptyProject, sampleProject, tempDir } from '../helpers/project.js';
import { runCli } from '../helpers/server.js';

/**
 * doctor on the files a project keeps under .ralph/, each problem produced for real: what is wrong, for
 * which path, the next step; an errno code only in parentheses after its words; and the project left
 * exactly as doctor found it. The wording of every code, EACCES and EROFS included, is unit-tested
 * (test/unit/fileErrors.test.ts); here those two run for real where the machine allows (as nobody, on a
 * read-only bind mount), and skip saying why elsewhere.
 */

/**
 * Every entry under `root` (links not followed), with its mode, and a file's size and time, a link's target:
 * what doctor must not change. A folder's own time is left out: SQLite makes -wal and -shm files beside
 * a WAL database to read it, even query-only, and removes them again when doctor closes the database.
 */
function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const f = join(dir, name);
      const st = lstatSync(f);
      const link = st.isSymbolicLink() ? ` -> ${readlinkSync(f)}` : '';
      const content = st.isDirectory() ? '' : ` ${st.size} ${st.mtimeMs}`;
      out.push(`${relative(root, f)} ${st.mode.toString(8)}${content}${link}`);
      if (st.isDirectory()) walk(f);
    }
  };
  walk(root);
  return out;
}

const lineOf = (text: string, label: string) =>
  text.split('\n').find((l) => l.slice(2).startsWith(`${label} `)) ?? `(no ${label} line in:\n${text})`;

/** Every errno code in the report stands in parentheses after its words, never alone. */
function noBareCodes(text: string): void {
  const rest = text.replace(/\((?:[^()]*, )?E[A-Z]+\)/g, '');
  assert.doesNotMatch(rest, /\bE[A-Z]{3,}\b/, `a bare errno code in:\n${text}`);
}

interface Scenario {
  what: string;
  make: (p: Project) => void;
  status: 0 | 1;
  lines: [label: string, expected: RegExp][];
}

const moveOut = (path: string) => {
  const elsewhere = join(tempDir('ralph-outside-'), 'moved');
  cpSync(path, elsewhere, { recursive: true });
  rmSync(path, { recursive: true });
  symlinkSync(elsewhere, path);
};
const dbFolder = (p: Project) => dirname(p.dbPath);
const NOT_RUN = /^– .* not checked: the project folder or its \.ralph\/ failed its check$/;

const SCENARIOS: Scenario[] = [
  {
    what: 'a healthy project: every check passes',
    make: () => {},
    status: 0,
    lines: [['state file .ralph/learnings.txt', /^✓ .* readable and writable$/]],
  },
  {
    what: 'a missing state file passes and stays missing: the first append creates it',
    make: (p) => rmSync(p.learningsFile),
    status: 0,
    lines: [['state file .ralph/learnings.txt', /^✓ .* absent; will be created on first append$/]],
  },
  {
    what: 'a directory where a state file should be',
    make: (p) => {
      rmSync(p.progressFile);
      mkdirSync(p.progressFile);
    },
    status: 1,
    lines: [
      [
        'state file .ralph/progress.txt',
        /^✗ .* \S+\/\.ralph\/progress\.txt is a directory, not a regular file; refusing to use it; move it away: the first append creates the file$/,
      ],
    ],
  },
  {
    what: 'a directory where the database should be',
    make: (p) => {
      rmSync(p.dbPath);
      mkdirSync(p.dbPath);
    },
    status: 1,
    lines: [
      [
        'database',
        /^✗ database +\S+\/ralph\.db is a directory, not a regular file; refusing to use it; move it away \(then ralph-mcp init creates the database\), or name the database with --db PATH$/,
      ],
      ['schema', /^– schema +not checked: the database could not be opened$/],
    ],
  },
  {
    what: 'a file where .ralph/ should be',
    make: (p) => {
      rmSync(p.ralphDir, { recursive: true });
      writeFileSync(p.ralphDir, 'notes');
    },
    status: 1,
    lines: [
      [
        'project',
        /^✗ project +\S+\/\.ralph is a file, not a folder: Ralph keeps the project's state in the \.ralph\/ folder; move it away, then `ralph-mcp init --project \S+` creates the folder$/,
      ],
      ['database', NOT_RUN],
      ['state file .ralph/learnings.txt', NOT_RUN],
    ],
  },
  {
    what: "a file where the database's folder should be",
    make: (p) => {
      rmSync(dbFolder(p), { recursive: true });
      writeFileSync(dbFolder(p), '');
    },
    status: 1,
    lines: [
      [
        'database',
        /^✗ database +\S+\/\.ralph\/db is a file, not a folder, so no database can be at \S+\/ralph\.db; move it away \(then ralph-mcp init creates the folder and the database\)$/,
      ],
    ],
  },
  {
    what: '.ralph/ a link out of the project',
    make: (p) => moveOut(p.ralphDir),
    status: 1,
    lines: [
      [
        'project',
        /^✗ project +\S+\/\.ralph is a symbolic link to \S+, outside the project: ralph-mcp refuses the database and state files behind it; replace the link with the folder itself$/,
      ],
      ['state file .ralph/progress.txt', NOT_RUN],
    ],
  },
  {
    what: "the database's folder a link out of the project, which a launch refuses too",
    make: (p) => moveOut(dbFolder(p)),
    status: 1,
    lines: [
      [
        'database',
        /^✗ database +\S+\/ralph\.db lies in a folder that resolves to \S+, outside the project \S+ \(through a symbolic link\); replace the link with the folder itself, or name the database with --db PATH$/,
      ],
    ],
  },
  {
    what: "a link loop where the database's folder should be",
    make: (p) => {
      rmSync(dbFolder(p), { recursive: true });
      symlinkSync(dbFolder(p), dbFolder(p));
    },
    status: 1,
    lines: [
      [
        'database',
        /^✗ database +ralph-mcp cannot read \S+\/\.ralph\/db: too many symbolic links \(a link that leads back to itself\) \(ELOOP\); replace the link with the file or folder itself$/,
      ],
    ],
  },
  {
    what: 'no .ralph/ at all',
    make: (p) => rmSync(p.ralphDir, { recursive: true }),
    status: 1,
    lines: [
      ['project', /^✗ project +\S+ has no \.ralph\/ folder \(ralph-mcp init creates one\)$/],
      ['state file .ralph/progress.txt', NOT_RUN],
    ],
  },
  {
    what: 'no database folder',
    make: (p) => rmSync(dbFolder(p), { recursive: true }),
    status: 1,
    lines: [['database', /^✗ database +not found at \S+\/ralph\.db \(ralph-mcp init creates it\)$/]],
  },
];

for (const s of SCENARIOS) {
  test(`doctor: ${s.what}; the project is left as it was`, () => {
    const p = emptyProject();
    s.make(p);
    const before = tree(p.root);
    const r = runCli(['doctor', '--project', p.root]);
    assert.equal(r.status, s.status, r.stdout);
    assert.equal(r.stderr, '');
    for (const [label, expected] of s.lines) assert.match(lineOf(r.stdout, label), expected, label);
    noBareCodes(r.stdout);
    assert.deepEqual(tree(p.root), before, 'doctor changed nothing in the project');
  });
}

test('doctor and a launch agree: a database folder linked out of the project is refused by both', () => {
  const p = emptyProject();
  moveOut(dbFolder(p));
  const plan = runCli(['plan', '--project', p.root, '--recipe', 'yap']);
  assert.equal(plan.status, 2);
  assert.match(plan.stderr, /outside the project .*; or name the database with --db PATH/);
});

test('doctor on a project in use (a sample with data): nothing in it changes, -wal and -shm included', () => {
  const p = sampleProject('normalized');
  const before = tree(p.root);
  const r = runCli(['doctor', '--project', p.root]);
  assert.equal(r.status, 0, r.stdout);
  assert.deepEqual(tree(p.root), before);
});

// ---- permissions and read-only file systems, for real where the machine allows --------------------

const NOBODY = 65534;
const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];

/** doctor as nobody (root ignores permissions), or the reason it cannot run so here. */
function doctorAsNobody(root: string): { status: number | null; stdout: string } | string {
  if (process.platform !== 'linux') return 'permissions are exercised on Linux only';
  const cmd = serverCommand(['doctor', '--project', root]);
  if (process.getuid?.() !== 0) return 'needs root, to run doctor as another user (nobody)';
  const r = spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), cmd.command, ...cmd.args], { encoding: 'utf8' });
  if (r.error || (r.status !== 0 && r.status !== 1)) return `cannot run as nobody: ${r.error?.message ?? r.stderr}`;
  return { status: r.status, stdout: r.stdout };
}

test('doctor as a user who may read but not write the project: EACCES in words, for every file', (t) => {
  const p = emptyProject();
  chmodSync(p.root, 0o755);
  rmSync(p.progressFile);
  const r = doctorAsNobody(p.root);
  if (typeof r === 'string') return t.skip(r);
  assert.equal(r.status, 1, r.stdout);
  const access = 'give the user running ralph-mcp access \\(chmod, chown\\), or run ralph-mcp as a user who has it';
  assert.match(
    lineOf(r.stdout, 'state file .ralph/learnings.txt'),
    new RegExp(
      `^✗ .* ralph-mcp cannot write \\S+/\\.ralph/learnings\\.txt: permission denied \\(EACCES\\); ${access}; until then agents' appends to it fail with io_error$`,
    ),
  );
  assert.match(
    lineOf(r.stdout, 'state file .ralph/progress.txt'),
    new RegExp(
      `^✗ .* absent, and the first append cannot create it: ralph-mcp cannot write \\S+/\\.ralph: permission denied \\(EACCES\\); ${access}$`,
    ),
  );
  assert.match(
    lineOf(r.stdout, 'database writable'),
    /^✗ database writable +no: this user cannot write \S+\/ralph\.db \(permission denied, EACCES\), .*answer every write with io_error\. Give the user running ralph-mcp access/,
  );
  assert.match(
    lineOf(r.stdout, 'database'),
    /because this user cannot write \S+ \(permission denied, EACCES\)\. Make the folder writable/,
  );
  noBareCodes(r.stdout);
  chmodSync(p.ralphDir, 0o700);
  const closed = doctorAsNobody(p.root);
  assert.ok(typeof closed !== 'string');
  assert.match(
    lineOf(closed.stdout, 'project'),
    new RegExp(`^✗ project +ralph-mcp cannot read \\S+/\\.ralph: permission denied \\(EACCES\\); ${access}$`),
  );
  noBareCodes(closed.stdout);
});

test('doctor on a read-only file system: EROFS in words, with the next step; nothing written', (t) => {
  if (process.platform !== 'linux') return t.skip('bind mounts are Linux only');
  const p = emptyProject();
  const bind = spawnSync('mount', ['--bind', p.ralphDir, p.ralphDir], { encoding: 'utf8' });
  if (bind.error || bind.status !== 0)
    return t.skip(`cannot bind-mount (needs root or CAP_SYS_ADMIN): ${bind.error?.message ?? bind.stderr.trim()}`);
  try {
    const ro = spawnSync('mount', ['-o', 'remount,bind,ro', p.ralphDir], { encoding: 'utf8' });
    if (ro.status !== 0) return t.skip(`cannot remount read-only: ${ro.stderr.trim()}`);
    const before = tree(p.root);
    const r = runCli(['doctor', '--project', p.root]);
    assert.equal(r.status, 1, r.stdout);
    assert.match(
      lineOf(r.stdout, 'state file .ralph/progress.txt'),
      /^✗ .* ralph-mcp cannot write \S+\/\.ralph\/progress\.txt: the file system is read-only \(EROFS\); remount it read-write, or move the project to a writable file system; until then agents' appends to it fail with io_error$/,
    );
    assert.match(
      lineOf(r.stdout, 'database writable'),
      /\(the file system is read-only, EROFS\).*Remount it read-write/,
    );
    assert.match(lineOf(r.stdout, 'database'), /is on a read-only file system \(EROFS\)\. Remount it read-write/);
    noBareCodes(r.stdout);
    assert.deepEqual(tree(p.root), before);
  } finally {
    if (spawnSync('umount', [p.ralphDir]).status !== 0) spawnSync('umount', ['-l', p.ralphDir]);
  }
});
