import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { REPO } from '../helpers/env.js';

/**
 * createLogger (src/server/log.ts) logging to stderr makes pino only at the first line written or the
 * first child: the lines it writes must be pino's, at the level asked, and nothing else. Each case runs
 * in a process of its own, whose stderr is the log.
 */
function linesOf(level: string, script: string): Record<string, unknown>[] {
  const log = pathToFileURL(join(REPO, 'dist', 'src', 'server', 'log.js')).href;
  const code = `import { createLogger } from ${JSON.stringify(log)};\nconst log = createLogger(${JSON.stringify(level)});\n${script}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '', 'nothing on stdout');
  return r.stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const brief = (lines: Record<string, unknown>[]) => lines.map(({ level, msg, name }) => ({ level, msg, name }));

test('lines below the level are dropped, those at or above it written by pino to stderr', () => {
  const script = "log.trace('t'); log.debug('d'); log.info('i'); log.warn('w'); log.error('e'); log.fatal('f');";
  assert.deepEqual(brief(linesOf('error', script)), [
    { level: 50, msg: 'e', name: 'ralph-mcp' },
    { level: 60, msg: 'f', name: 'ralph-mcp' },
  ]);
  assert.deepEqual(
    brief(linesOf('info', script)).map((l) => l.level),
    [30, 40, 50, 60],
  );
  assert.deepEqual(linesOf('silent', `${script} log.child({ a: 1 }).fatal('f');`), []);
});

test("a line's object, error and pid as pino writes them; a child's bindings and level", () => {
  const [line, child, err] = linesOf(
    'warn',
    "log.warn({ n: 1 }, 'with object'); const c = log.child({ conn: 7 }); c.info('no'); c.warn('from child'); log.error({ err: new Error('boom') }, 'failed');",
  );
  assert.deepEqual([line?.n, line?.msg], [1, 'with object']);
  assert.equal(typeof line?.pid, 'number');
  assert.deepEqual([child?.conn, child?.msg, child?.level], [7, 'from child', 40]);
  assert.equal((err?.err as { message?: string } | undefined)?.message, 'boom');
});
