// Installs this checkout's dependencies when they are missing (a fresh clone), so that `npm start` and
// `npm test` are the only two commands a newcomer needs. Plain Node: it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const wanted = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
const missing = wanted.filter((name) => !existsSync(join(root, 'node_modules', name, 'package.json')));
if (missing.length > 0) {
  const lock = existsSync(join(root, 'package-lock.json'));
  process.stderr.write(
    `ensure: ${missing.length} of ${wanted.length} dependencies missing (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}): npm ${lock ? 'ci' : 'install'}\n`,
  );
  // better-sqlite3 downloads a prebuilt binary, or compiles one (python3, make and a C++ compiler; about two minutes).
  const r = spawnSync('npm', [lock ? 'ci' : 'install', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
