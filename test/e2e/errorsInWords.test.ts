import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { inWords } from '../../src/cli/launch.js';
import { serverCommand } from '../helpers/env.js';
import { runCli } from '../helpers/server.js';
import { sampleProject } from '../helpers/project.js';

/** Wrong paths, permissions and read-only files, in words a person acts on, on every command. */
const file = join(mkdtempSync(join(tmpdir(), 'ralph-words-')), 'not-a-folder');
writeFileSync(file, 'x');

test('--project naming a file: serve, doctor and init say so (exit 2, one line, no stack)', () => {
  const serve = runCli(['--project', file, '--recipe', 'yap']);
  assert.equal(serve.status, 2);
  assert.equal(
    serve.stderr,
    `ralph-mcp: error: ${file} is a file, not a directory: --project names the project's folder (the one holding .ralph/)\n`,
  );
  const init = runCli(['init', '--project', file]);
  assert.equal(init.status, 2);
  assert.equal(
    init.stderr,
    `ralph-mcp: error: cannot create ${file}/.ralph/db: a part of the path is a file, not a directory (ENOTDIR)\n`,
  );
  const doctor = runCli(['doctor', '--project', file]);
  assert.equal(doctor.status, 1, 'doctor reports, it does not crash');
  assert.match(doctor.stdout, /✗ project +\S+ is a file, not a directory: --project names the project's folder/);
});

test('inWords: permissions, read-only file systems and read-only databases', () => {
  const fsErr = (code: string, syscall: string, path: string) =>
    Object.assign(new Error(`${code}: x`), { code, syscall, path });
  assert.equal(
    inWords(fsErr('EACCES', 'mkdir', '/project/.ralph')),
    'cannot create /project/.ralph: permission denied (EACCES); run as a user who may write there, or choose another --project',
  );
  assert.equal(
    inWords(fsErr('EROFS', 'open', '/ro/.ralph/progress.txt')),
    'cannot open /ro/.ralph/progress.txt: the file system is read-only (EROFS); run as a user who may write there, or choose another --project',
  );
  assert.match(
    inWords(Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }))!,
    /^cannot write the database: it is read-only for this user or on this file system \(SQLITE_READONLY\)/,
  );
  assert.equal(inWords(new Error('plain')), undefined);
  assert.equal(inWords(Object.assign(new Error('x'), { code: 'EWHATEVER', path: '/p' })), undefined);
});

/**
 * Makes `paths` unwritable for this process: chattr +i (the only thing that stops root), else the
 * permission bits (enough for anyone else). Returns how, and the undo; or why it could not, checked by a
 * real write attempt on the first path (a SQLite database).
 */
function makeReadOnly(paths: string[]): { how: string; undo: () => void } | string {
  const attr = spawnSync('chattr', ['+i', ...paths], { encoding: 'utf8' });
  const chmodAll = (dirMode: number, fileMode: number) => {
    for (const f of paths) chmodSync(f, statSync(f).isDirectory() ? dirMode : fileMode);
  };
  if (attr.status !== 0) chmodAll(0o555, 0o444);
  const undo = attr.status === 0 ? () => void spawnSync('chattr', ['-i', ...paths]) : () => chmodAll(0o755, 0o644);
  try {
    const db = new Database(paths[0]!);
    try {
      db.exec('CREATE TABLE probe_write (x)');
    } finally {
      db.close();
    }
  } catch {
    return { how: attr.status === 0 ? 'chattr +i' : 'chmod a-w', undo };
  }
  undo();
  return 'cannot make a file read-only here (root, and chattr +i is not available on this file system)';
}

const lines = (text: string) => text.split('\n');
const doctorLine = (text: string, label: string) =>
  lines(text).find((l) => l.slice(2).startsWith(`${label} `)) ?? `(no ${label} line)`;

test('a database this user cannot write: doctor says so (never crashes), serve starts and refuses writes in words', (t) => {
  const project = sampleProject('normalized');
  const ro = makeReadOnly([project.dbPath]);
  if (typeof ro === 'string') return t.skip(ro);
  try {
    const doctor = runCli(['doctor', '--project', project.root]);
    assert.equal(doctor.status, 1, doctor.stderr);
    assert.equal(doctor.stderr, '');
    assert.match(doctorLine(doctor.stdout, 'database'), /^✓ database +\S+ \(readable\)$/);
    assert.match(
      doctorLine(doctor.stdout, 'database writable'),
      new RegExp(
        `^✗ database writable +no: this user cannot write ${project.dbPath} .*answer every write with io_error`,
      ),
    );
    // Every check that needs only reading ran and passed.
    for (const label of ['integrity', 'schema', 'ralph-mcp tables'])
      assert.match(doctorLine(doctor.stdout, label), /^✓ /, label);
    const cmd = serverCommand(['--project', project.root, '--recipe', 'braindump']);
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } };
    const write = { name: 'create_feature', arguments: { name: 'offline', display_name: 'Offline' } };
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: init },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: write },
    ];
    const input = messages.map((m) => `${JSON.stringify(m)}\n`).join('');
    const session = spawnSync(cmd.command, cmd.args, { input, encoding: 'utf8', timeout: 20_000 });
    const reply = lines(session.stdout)
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.id === 2);
    assert.ok(reply, `no reply to the write (${ro.how}): ${session.stderr}`);
    assert.deepEqual([reply.result.isError, reply.result.structuredContent.error.code], [true, 'io_error']);
    assert.match(reply.result.structuredContent.error.message, /read-only .*nothing was written/);
  } finally {
    ro.undo();
  }
});

test('a database whose folder this user cannot write either: doctor says why it cannot open it (never crashes)', (t) => {
  const project = sampleProject('normalized');
  const ro = makeReadOnly([project.dbPath, dirname(project.dbPath)]);
  if (typeof ro === 'string') return t.skip(ro);
  try {
    const doctor = runCli(['doctor', '--project', project.root]);
    assert.equal(doctor.status, 1, doctor.stderr);
    assert.equal(doctor.stderr, '');
    assert.match(
      doctorLine(doctor.stdout, 'database'),
      /^✗ database +cannot be opened \(.*\): SQLite needs ralph\.db-shm beside a database in WAL mode and cannot create it, because this user cannot write .*\. Make the folder writable/,
    );
    assert.match(doctorLine(doctor.stdout, 'schema'), /^– schema +not checked/);
  } finally {
    ro.undo();
  }
});
