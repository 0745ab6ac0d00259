import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inWords } from '../src/cli/launch.js';
import { CLI } from './helpers/env.js';

/** Wrong paths, permissions and read-only files, in words a person acts on, on every command. */
const file = join(mkdtempSync(join(tmpdir(), 'ralph-words-')), 'not-a-folder');
writeFileSync(file, 'x');
const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { input: '', encoding: 'utf8' });

test('--project naming a file: serve, doctor and init say so (exit 2, one line, no stack)', () => {
  const serve = run(['--project', file, '--recipe', 'yap']);
  assert.equal(serve.status, 2);
  assert.equal(serve.stderr, `ralph-mcp: error: ${file} is a file, not a directory: --project names the project's folder (the one holding .ralph/)\n`);
  const init = run(['init', '--project', file]);
  assert.equal(init.status, 2);
  assert.equal(init.stderr, `ralph-mcp: error: cannot create ${file}/.ralph/db: a part of the path is a file, not a directory (ENOTDIR)\n`);
  const doctor = run(['doctor', '--project', file]);
  assert.equal(doctor.status, 1, 'doctor reports, it does not crash');
  assert.match(doctor.stdout, /is not a directory/);
});

test('inWords: permissions, read-only file systems and read-only databases', () => {
  const fsErr = (code: string, syscall: string, path: string) => Object.assign(new Error(`${code}: x`), { code, syscall, path });
  assert.equal(inWords(fsErr('EACCES', 'mkdir', '/project/.ralph')), 'cannot create /project/.ralph: permission denied (EACCES); run as a user who may write there, or choose another --project');
  assert.equal(inWords(fsErr('EROFS', 'open', '/ro/.ralph/progress.txt')), 'cannot open /ro/.ralph/progress.txt: the file system is read-only (EROFS); run as a user who may write there, or choose another --project');
  assert.match(inWords(Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }))!, /^cannot write the database: it is read-only for this user or on this file system \(SQLITE_READONLY\)/);
  assert.equal(inWords(new Error('plain')), undefined);
  assert.equal(inWords(Object.assign(new Error('x'), { code: 'EWHATEVER', path: '/p' })), undefined);
});
