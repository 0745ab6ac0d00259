// Installs this checkout's dependencies when they are missing (a fresh clone), so that `npm start` and
// `npm test` are the only two commands a newcomer needs. Plain Node: it runs before anything is installed.
//
//   node scripts/ensure.mjs          what serving and building need: the root package's dependencies only
//   node scripts/ensure.mjs --test   and the test tools too (the workspace test/tools: Bun, Biome, the
//                                    Inspector, the bench's peer servers, fast-check; about 250 MB)
//
// npm is silent for minutes while better-sqlite3 compiles, so a line on stderr says what is happening at
// least every PROGRESS_MS, and what npm warns about is explained once it has finished.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROGRESS_MS = 15_000;
const root = fileURLToPath(new URL('..', import.meta.url));
const withTests = process.argv.includes('--test');

const manifest = (dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
const installed = (name) => existsSync(join(root, 'node_modules', name, 'package.json'));
const pkg = manifest('.');
const serving = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
const testTools = pkg.workspaces.flatMap((dir) => Object.keys(manifest(dir).dependencies ?? {}));
const servingMissing = serving.filter((name) => !installed(name));
const testMissing = withTests ? testTools.filter((name) => !installed(name)) : [];

const plan = choosePlan();
if (plan) {
  const code = await run(plan);
  if (code !== 0) process.exit(code);
}

/** The smallest npm command that installs what is missing; null when nothing is. */
function choosePlan() {
  const lock = existsSync(join(root, 'package-lock.json'));
  const install = lock ? 'ci' : 'install';
  const flags = ['--no-audit', '--no-fund'];
  if (servingMissing.length > 0 && !withTests)
    return {
      args: [install, '--workspaces=false', ...flags],
      what: `what serving and building need (${names(servingMissing)}); the test tools come with \`npm test\``,
    };
  // One install of everything is quicker than two.
  if (servingMissing.length > 0) return { args: [install, ...flags], what: 'every dependency, the test tools too' };
  if (testMissing.length > 0)
    return {
      // Adds the workspace's packages beside the installed ones: better-sqlite3 is not rebuilt.
      args: ['install', '--workspace=test/tools', ...flags],
      what: `the test tools (${names(testMissing)}; about 250 MB)`,
    };
  return null;
}

function names(list) {
  return `${list.slice(0, 3).join(', ')}${list.length > 3 ? `, and ${list.length - 3} more` : ''}`;
}

function run({ args, what }) {
  say(`installing ${what}: npm ${args.join(' ')}`);
  if (!installed('better-sqlite3'))
    say(
      'better-sqlite3 downloads a prebuilt binary where it can; where it cannot (no network beyond the npm ' +
        'registry) it compiles SQLite with python3, make and a C++ compiler: 4 to 7 minutes on 2 cores',
    );
  const started = Date.now();
  // The root's prepare script builds; what runs ensure builds right after it, so once is enough.
  const env = { ...process.env, RALPH_MCP_SKIP_PREPARE: '1' };
  const child = spawn('npm', args, { cwd: root, env, stdio: ['ignore', 'inherit', 'pipe'] });
  const warnings = npmWarnings();
  child.stderr.on('data', (chunk) => warnings.add(chunk.toString()));
  const timer = setInterval(() => say(`still installing (${elapsed(started)}): ${phase()}`), PROGRESS_MS);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearInterval(timer);
      warnings.end();
      say(code === 0 ? `installed in ${elapsed(started)}` : `npm ${args[0]} failed (exit ${code})`);
      resolve(code ?? 1);
    });
  });
}

/** What npm is most likely doing now, read from what it has written so far. */
function phase() {
  const addon = join(root, 'node_modules', 'better-sqlite3', 'build');
  if (installed('better-sqlite3') && !existsSync(join(addon, 'Release', 'better_sqlite3.node')))
    return existsSync(addon)
      ? 'compiling better-sqlite3 and SQLite from source (no prebuilt binary could be downloaded)'
      : 'better-sqlite3 is looking for a prebuilt binary';
  return installed('better-sqlite3') ? 'unpacking the remaining packages' : 'downloading and unpacking packages';
}

/**
 * npm's stderr, passed through, with the warnings a newcomer would otherwise have to look up explained:
 * the engine warnings (five lines per package) become one line that says why they do not matter.
 */
function npmWarnings() {
  const engines = new Set();
  let pending = '';
  let scripts = false;
  const line = (text) => {
    const asks = /package: '([^']+)'/.exec(text);
    if (asks) engines.add(asks[1]);
    if (/EBADENGINE/.test(text)) return;
    if (/install-scripts|allow-?scripts/i.test(text)) scripts = true;
    process.stderr.write(`${text}\n`);
  };
  return {
    add(chunk) {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const text of lines) line(text);
    },
    end() {
      if (pending) line(pending);
      if (engines.size > 0)
        say(
          `npm warned that ${[...engines].join(', ')} ask for a newer Node: they are the MCP Inspector (a test ` +
            'tool) and its dependencies, which npm checks even when it does not install them; the parts of the ' +
            'Inspector the tests use run on Node 20, and the server needs only Node 20',
        );
      if (scripts)
        say(
          'npm runs install scripts only for the packages package.json\'s "allowScripts" lets it: better-sqlite3 ' +
            '(it fetches or compiles its SQLite binary) and Bun (it links the binary its platform package brings); ' +
            "esbuild finds its binary without its script, and the Inspector's only serves its own source checkout",
        );
    },
  };
}

function elapsed(since) {
  const s = Math.round((Date.now() - since) / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function say(line) {
  process.stderr.write(`ensure: ${line}\n`);
}
