import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  openInProject,
  raceSeam,
  readTailInProject,
  readWholeInProject,
  UnsafeFileError,
  type UnsafeReason,
} from '../../src/domain/safeOpen.js';
import { tempDir } from '../helpers/project.js';

/**
 * domain/safeOpen.ts on its own: a fixed-name file inside a project is opened only if it is a regular file
 * whose folder lies inside the project, never through a link, never blocking on a FIFO, and read with a
 * bound. (Through the tools, the resource and the recipes file: test/contract/stateFiles.safety.test.ts.)
 */

/** A project root with a .ralph folder, and a folder outside it holding a "secret" file. */
function layout() {
  const root = tempDir('ralph-safeopen-');
  const ralph = join(root, '.ralph');
  mkdirSync(ralph);
  const outside = tempDir('ralph-outside-');
  const secret = join(outside, 'secret.txt');
  writeFileSync(secret, 'outside content\n');
  return { root, ralph, file: join(ralph, 'progress.txt'), outside, secret };
}

function refusedWith(fn: () => unknown, reason: UnsafeReason, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UnsafeFileError, `an UnsafeFileError, got ${String(err)}`);
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  });
}

/** openInProject refuses `file` for reading and for appending alike. */
function refusedModes(root: string, file: string, reason: UnsafeReason, message: RegExp): void {
  for (const mode of ['read', 'append'] as const) refusedWith(() => openInProject(root, file, mode), reason, message);
}

/** Runs `fn`, failing if it takes longer than `ms` (a FIFO that blocks would hang the test runner instead). */
function prompt<T>(ms: number, fn: () => T): T {
  const t0 = Date.now();
  try {
    return fn();
  } finally {
    assert.ok(Date.now() - t0 < ms, `returned within ${ms} ms (took ${Date.now() - t0} ms)`);
  }
}

describe('openInProject', () => {
  test('a regular file is opened for reading and for appending; a missing one reads as absent and is created by append', () => {
    const { root, file } = layout();
    assert.equal(openInProject(root, file, 'read'), undefined);
    const a = openInProject(root, file, 'append')!;
    writeSync(a.fd, 'hello\n');
    closeSync(a.fd);
    assert.equal(readFileSync(file, 'utf8'), 'hello\n');
    const { fd, size } = openInProject(root, file, 'read')!;
    closeSync(fd);
    assert.equal(size, 6);
  });

  test('a symbolic link to a file outside the project is refused, for read and append; the target is unchanged', () => {
    const { root, file, secret } = layout();
    symlinkSync(secret, file);
    refusedWith(
      () => openInProject(root, file, 'append'),
      'symlink',
      /progress\.txt is a symbolic link; refusing to follow it/,
    );
    refusedWith(() => readTailInProject(root, file, 1024), 'symlink', /symbolic link/);
    assert.equal(readFileSync(secret, 'utf8'), 'outside content\n');
  });

  test('a symbolic link to another file inside the project is refused too (any link)', () => {
    const { root, ralph, file } = layout();
    writeFileSync(join(ralph, 'notes.txt'), 'inside\n');
    symlinkSync('notes.txt', file);
    refusedModes(root, file, 'symlink', /symbolic link/);
    assert.equal(readFileSync(join(ralph, 'notes.txt'), 'utf8'), 'inside\n');
  });

  test('a dangling link is refused, and append does not create its target', () => {
    const { root, file, outside } = layout();
    const target = join(outside, 'created-by-us.txt');
    symlinkSync(target, file);
    refusedWith(() => openInProject(root, file, 'append'), 'symlink', /symbolic link/);
    assert.equal(existsSync(target), false);
  });

  test('a FIFO is refused at once, for read and append (no writer, no reader: nothing blocks)', () => {
    const { root, file } = layout();
    execFileSync('mkfifo', [file]);
    prompt(2000, () => refusedModes(root, file, 'not_regular', /is a FIFO \(named pipe\), not a regular file/));
    refusedWith(() => prompt(2000, () => readTailInProject(root, file, 1024)), 'not_regular', /FIFO/);
  });

  test('a directory in place of the file is refused', () => {
    const { root, file } = layout();
    mkdirSync(file);
    refusedModes(root, file, 'not_regular', /is a directory, not a regular file/);
  });

  test('a device in place of the file is refused (where this process may make one)', (t) => {
    const { root, file } = layout();
    try {
      execFileSync('mknod', [file, 'c', '1', '3'], { stdio: 'ignore' }); // /dev/null's numbers
    } catch {
      t.skip('mknod is not permitted here');
      return;
    }
    refusedModes(root, file, 'not_regular', /is a device/);
  });

  test('.ralph itself a link out of the project: refused, for read and append, nothing written there', () => {
    const root = tempDir('ralph-safeopen-');
    const away = tempDir('ralph-outside-');
    writeFileSync(join(away, 'progress.txt'), 'outside progress\n');
    symlinkSync(away, join(root, '.ralph'));
    const file = join(root, '.ralph', 'progress.txt');
    refusedModes(root, file, 'outside_project', /lies in a folder that resolves to .*outside the project/);
    refusedWith(
      () => openInProject(root, join(root, '.ralph', 'learnings.txt'), 'append'),
      'outside_project',
      /outside the project/,
    );
    assert.equal(readFileSync(join(away, 'progress.txt'), 'utf8'), 'outside progress\n');
    assert.equal(existsSync(join(away, 'learnings.txt')), false, 'append did not create a file outside');
  });

  test('.ralph a link to a folder inside the project is allowed (it stays in the project)', () => {
    const root = tempDir('ralph-safeopen-');
    mkdirSync(join(root, 'state'));
    writeFileSync(join(root, 'state', 'progress.txt'), 'x\n');
    symlinkSync('state', join(root, '.ralph'));
    assert.equal(readTailInProject(root, join(root, '.ralph', 'progress.txt'), 100)?.text, 'x\n');
  });
});

describe('bounded reads', () => {
  test('readTailInProject reads at most maxBytes: the end of the file, and says how much it left out', () => {
    const { root, file } = layout();
    const big = `${'a'.repeat(3_000_000)}THE END\n`;
    writeFileSync(file, big);
    const tail = { text: big.slice(-1000), fileBytes: big.length, omittedBytes: big.length - 1000 };
    assert.deepEqual(readTailInProject(root, file, 1000), tail);
    assert.deepEqual(readTailInProject(root, file, 10_000_000), { text: big, fileBytes: big.length, omittedBytes: 0 });
  });

  test('a cut inside a UTF-8 character skips to the next whole character', () => {
    const { root, file } = layout();
    writeFileSync(file, 'é'.repeat(100)); // 2 bytes each
    const r = readTailInProject(root, file, 11)!;
    assert.equal(r.text, 'é'.repeat(5));
    assert.equal(r.omittedBytes, 200 - 10);
  });

  test('readWholeInProject refuses a file over its bound instead of reading it', () => {
    const { root, file } = layout();
    writeFileSync(file, 'x'.repeat(2049));
    refusedWith(() => readWholeInProject(root, file, 2048), 'too_large', /is 2049 bytes; at most 2048 are read/);
    writeFileSync(file, 'x'.repeat(2048));
    assert.equal(readWholeInProject(root, file, 2048)!.length, 2048);
    assert.equal(readWholeInProject(root, join(root, '.ralph', 'absent.json'), 2048), undefined);
  });
});

describe('hard links and a .ralph swapped during the open (issue 28)', () => {
  test('a hard link to a file outside is refused for reading and appending; the outside file is unchanged', () => {
    const { root, file, secret } = layout();
    linkSync(secret, file);
    refusedModes(root, file, 'hard_link', /has 2 hard links/);
    refusedWith(() => readWholeInProject(root, file, 2048), 'hard_link', /another name/);
    assert.equal(readFileSync(secret, 'utf8'), 'outside content\n');
    // Once the other name is gone the file is an ordinary one again.
    rmSync(secret);
    assert.equal(readWholeInProject(root, file, 2048), 'outside content\n');
  });

  test('.ralph flipped to a link out between the folder check and the open: nothing is created outside', () => {
    for (const mode of ['append', 'read'] as const) {
      const { root, ralph, file, outside } = layout();
      raceSeam.afterFolderCheck = () => {
        renameSync(ralph, join(root, '.ralph-real'));
        symlinkSync(outside, ralph);
      };
      try {
        refusedWith(() => openInProject(root, file, mode), 'outside_project', /outside the project/);
      } finally {
        raceSeam.afterFolderCheck = undefined;
      }
      assert.deepEqual(readdirSync(outside), ['secret.txt'], `${mode}: no file was created outside`);
    }
  });
});
