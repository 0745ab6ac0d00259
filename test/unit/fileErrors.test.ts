import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notPermitted, pathProblem } from '../../src/cli/doctorFiles.js';
import { FS_ERRORS, fileErrorInWords } from '../../src/domain/fileErrors.js';
import { toStateFileError } from '../../src/domain/stateFiles.js';

/**
 * The words doctor (and the launch) give for each errno code. This machine runs the tests as root, where
 * EACCES, EPERM or EROFS cannot always be produced, so each is an error shaped as Node makes them;
 * test/e2e/doctorFiles.test.ts produces the ones it can for real.
 */
const errno = (code: string, syscall = 'open', path = '/p/.ralph/progress.txt') =>
  Object.assign(new Error(`${code}: what the system says, ${syscall} '${path}'`), { code, syscall, path });

/** Every errno code in `line` stands in parentheses after its words, never alone. */
function codesInParentheses(line: string): void {
  const rest = line.replace(/\((?:[^()]*, )?E[A-Z]+\)/g, '');
  assert.doesNotMatch(rest, /\bE[A-Z]{3,}\b/, `a bare errno code in: ${line}`);
}

test('every code of the table: what ralph-mcp cannot do, to which path, why in words, the next step', () => {
  for (const [code, { words, next }] of Object.entries(FS_ERRORS)) {
    const line = fileErrorInWords(errno(code), { verb: 'write' })!;
    assert.equal(line, `ralph-mcp cannot write /p/.ralph/progress.txt: ${words} (${code})${next ? `; ${next}` : ''}`);
    codesInParentheses(line);
  }
});

test("a code the table does not know: the system's words, the code in parentheses; no code, no line", () => {
  const line = fileErrorInWords(errno('EXDEV', 'rename'))!;
  assert.equal(line, 'ralph-mcp cannot move /p/.ralph/progress.txt: what the system says (EXDEV)');
  codesInParentheses(line);
  assert.equal(fileErrorInWords(new Error('plain')), undefined);
  assert.equal(fileErrorInWords(Object.assign(new Error('x'), { code: 'SQLITE_BUSY' })), undefined);
});

test('doctor: a state file it may not read or write, with the next step and what agents see until then', () => {
  const file = '/p/.ralph/learnings.txt';
  const cases: [code: string, verb: 'read' | 'write', expected: string][] = [
    [
      'EACCES',
      'write',
      `ralph-mcp cannot write ${file}: permission denied (EACCES); give the user running ralph-mcp access (chmod, chown), or run ralph-mcp as a user who has it; until then agents' appends to it fail with io_error`,
    ],
    [
      'EROFS',
      'write',
      `ralph-mcp cannot write ${file}: the file system is read-only (EROFS); remount it read-write, or move the project to a writable file system; until then agents' appends to it fail with io_error`,
    ],
    [
      'EPERM',
      'write',
      `ralph-mcp cannot write ${file}: operation not permitted (EPERM); it may be immutable (lsattr shows an i; chattr -i clears it) or another user's: give the user running ralph-mcp access (chmod, chown), or run ralph-mcp as a user who has it; until then agents' appends to it fail with io_error`,
    ],
    [
      'EACCES',
      'read',
      `ralph-mcp cannot read ${file}: permission denied (EACCES); give the user running ralph-mcp access (chmod, chown), or run ralph-mcp as a user who has it; until then agents' reads of it fail with io_error`,
    ],
  ];
  for (const [code, verb, expected] of cases) {
    const line = notPermitted(errno(code, 'access', file), file, verb);
    assert.equal(line, expected);
    codesInParentheses(line);
  }
});

test('doctor: a failed look at a path, in words, for each code a look can give', () => {
  const at = '/nonexistent-ralph-root/.ralph/db';
  const cases: [code: string, expected: RegExp][] = [
    [
      'ENOENT',
      /^ralph-mcp cannot read \/nonexistent-ralph-root\/\.ralph\/db: no such file or directory \(ENOENT\); ralph-mcp init creates it$/,
    ],
    [
      'ENOTDIR',
      /: a part of the path is a file, not a directory \(ENOTDIR\); move that file away so the folder can be there$/,
    ],
    ['EISDIR', /: it is a directory \(EISDIR\); move the directory away so the file can be there$/],
    [
      'ELOOP',
      /: too many symbolic links \(a link that leads back to itself\) \(ELOOP\); replace the link with the file or folder itself$/,
    ],
    ['ENAMETOOLONG', /: the path is too long \(ENAMETOOLONG\); move the project to a shorter path$/],
    ['EIO', /: the device reported an input\/output error \(EIO\); check the disk/],
    ['EACCES', /: permission denied \(EACCES\); give the user running ralph-mcp access/],
    ['EROFS', /: the file system is read-only \(EROFS\); remount it read-write/],
  ];
  for (const [code, expected] of cases) {
    const line = pathProblem(
      errno(code, 'lstat', at),
      at,
      'read',
      code === 'ENOENT' ? 'ralph-mcp init creates it' : undefined,
    );
    assert.match(line, expected);
    codesInParentheses(line);
  }
});

test('a state file the system refuses: the errno in words and the next step, never the raw message', () => {
  const e = toStateFileError(errno('EACCES', 'open', '/home/u/p/.ralph/learnings.txt'), 'append to', 'learnings.txt');
  assert.equal(e.code, 'io_error');
  assert.equal(
    e.message,
    `could not append to learnings.txt: permission denied (EACCES); nothing was written; ${FS_ERRORS.EACCES!.next}`,
  );
  assert.deepEqual(e.details, { file: 'learnings.txt', errno: 'EACCES' });
  assert.doesNotMatch(e.message, /\/home\/u/);
  const unknown = toStateFileError(errno('EXDEV', 'read'), 'read', 'progress.txt');
  assert.equal(unknown.message, 'could not read progress.txt: what the system says (EXDEV); nothing was read');
});
