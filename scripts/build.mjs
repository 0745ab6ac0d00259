// `npm run build`: dist/ from scratch. tsc type-checks and compiles (src/ for the tests' unit imports and
// the demo; test/, the bench and the stress tools too when the test tools are installed), esbuild writes
// the one-file server dist/ralph-mcp.js, postbuild makes tsc's CLI executable.
// A checkout installed by `npm start` has no test tools (scripts/ensure.mjs): then only the server and the
// demo are built (tsconfig.build.json), and a line says so. Each step says what it does on stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const testTools = Object.keys(
  JSON.parse(readFileSync(join(root, 'test', 'tools', 'package.json'), 'utf8')).dependencies,
);
const withTests = testTools.every((name) => existsSync(join(root, 'node_modules', name, 'package.json')));

rmSync(join(root, 'dist'), { recursive: true, force: true });
if (!withTests) say('the test tools are not installed (`npm test` installs them): building the server and the demo');
step(
  withTests ? 'type-checking and compiling src/, test/ and scripts/ (about 20 s)' : 'type-checking src/ (about 10 s)',
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', withTests ? 'tsconfig.json' : 'tsconfig.build.json'],
);
step('bundling the server into dist/ralph-mcp.js', process.execPath, [join(root, 'scripts', 'bundle.mjs')]);
// Bun comes with the test tools; `bun dist/ralph-mcp.js` falls back to the Node bundle without this one.
const bun = join(root, 'node_modules', '.bin', 'bun');
if (existsSync(bun))
  step('bundling and compiling the Bun bundle (bytecode)', bun, [join(root, 'scripts', 'bundle-bun.mjs')]);
else say('Bun is not installed (`npm test` installs it): no Bun bundle, `bun dist/ralph-mcp.js` loads the Node one');
step(null, process.execPath, [join(root, 'scripts', 'postbuild.mjs')]);

function step(what, command, args) {
  const started = Date.now();
  if (what) say(`${what}…`);
  const r = spawnSync(command, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    say(`failed (exit ${r.status ?? r.signal}): ${what ?? args.join(' ')}`);
    process.exit(r.status ?? 1);
  }
  if (what && Date.now() - started > 3000) say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
}

function say(line) {
  process.stderr.write(`build: ${line}\n`);
}
