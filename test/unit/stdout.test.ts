import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/env.js';

/**
 * stdout is the protocol: while a session is served nothing else may write there. Every write to
 * stdout in src/ is one of the few deliberate ones, each marked `// stdout-ok: why` on its line (the
 * subcommands' output, a refused launch's one response, the shutdown flush); the transport writes
 * through the stream it is given. Found by scanning every source line.
 */
const WRITER = /\bprocess\.stdout\.write\(|\bconsole\.(log|info|debug|dir|table|trace)\(/;

export function unmarkedWrites(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([path, text]) =>
    text
      .split('\n')
      .map((line, i) => [line, i + 1] as const)
      .filter(([line]) => WRITER.test(line) && !/\/\/ stdout-ok: \S/.test(line))
      .map(([line, n]) => `${path}:${n}: ${line.trim()}`),
  );
}

test('every stdout write in src/ is a marked, deliberate one', () => {
  const files = Object.fromEntries(
    readdirSync(join(REPO, 'src'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(REPO, 'src', f), 'utf8')]),
  );
  assert.ok(Object.keys(files).length > 100, 'the file walk found the sources');
  assert.deepEqual(unmarkedWrites(files), []);
});

test('the check finds unmarked writes and console output, and passes marked ones', () => {
  assert.deepEqual(
    unmarkedWrites({
      'a.ts': [
        "process.stdout.write('x');",
        "console.log('debug');",
        "process.stdout.write('', done); // stdout-ok: waits for the flush",
        "process.stderr.write('fine');",
        "console.error('stderr is fine');",
      ].join('\n'),
    }),
    ["a.ts:1: process.stdout.write('x');", "a.ts:2: console.log('debug');"],
  );
});
