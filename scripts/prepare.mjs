// `prepare`: npm runs it after a plain `npm install` / `npm ci` in this checkout, and it is the only script npm
// runs when it installs ralph-mcp from a git URL (it installs the clone, runs prepare, packs the result): without
// it a git install has no dist/ and no bin. `npm pack` runs it after prepack (which installs what is missing).
// scripts/ensure.mjs sets RALPH_MCP_SKIP_PREPARE for the installs it runs: what calls ensure builds right after.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (!process.env.RALPH_MCP_SKIP_PREPARE) {
  const build = fileURLToPath(new URL('build.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [build], { stdio: ['ignore', 2, 2] });
  process.exit(r.status ?? 1);
}
