// `npm run build:exe:bun` (run by Bun: `bun scripts/build-exe-bun.mjs`, after `npm run build`): the Bun
// single executable, dist/ralph-mcp-bun-<platform>-<arch>. `bun build --compile` with the server
// compiled to bytecode, bun:sqlite as its SQLite driver and the package files it reads (schema/,
// package.json) inside: it needs no Node, no node_modules and no Bun where it runs, only the same
// platform. The same server as the Node executable (scripts/build-exe.mjs) and the npm bundle; its
// entry is src/startup/bunExe.ts. It starts under a JIT policy (scripts/bunBuild.mjs) that the
// server lifts once it serves (src/startup/v8Flags.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bunBuild, bunBuildOptions, STARTUP_JIT_POLICY } from './bunBuild.mjs';
import { embeddedFiles } from './serverBuild.mjs';

if (typeof Bun === 'undefined') throw new Error('build:exe:bun runs under Bun: bun scripts/build-exe-bun.mjs');
const repo = new URL('..', import.meta.url).pathname;
const out = join(repo, 'dist', `ralph-mcp-bun-${process.platform}-${process.arch}`);

const options = await bunBuildOptions(join(repo, 'src', 'startup', 'bunExe.ts'), {
  __RALPH_EMBEDDED__: JSON.stringify(embeddedFiles()),
});
/** Builds the executable; `order`: a recorded run's function order to lay its bytecode out by. */
async function build(order) {
  rmSync(out, { force: true });
  await bunBuild({
    ...options,
    compile: {
      outfile: out,
      jitPolicy: STARTUP_JIT_POLICY,
      bytecodeOrder: order ?? false,
      // The executable is the server alone: it reads no .env, bunfig.toml, tsconfig.json or package.json
      // of the directory it is started in.
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
  });
}

/**
 * Which functions a start uses, in order: the executable as just built runs `init` and a stdio session
 * (initialize, tools/list) on a scratch project with BUN_BYTECODE_ORDER_OUT set. Built again with that
 * order, the bytecode a start reads lies together at the front (measured: 4,000 → 3,900 page faults and
 * 56 → 53 MB of RSS to the tools/list reply).
 */
function recordOrder() {
  const scratch = mkdtempSync(join(tmpdir(), 'ralph-mcp-order-'));
  const order = join(work, 'bytecode-order.txt');
  try {
    const run = (args, input = '') => {
      const env = { ...process.env, BUN_BYTECODE_ORDER_OUT: order };
      const r = spawnSync(out, args, { input, env, encoding: 'utf8', timeout: 60_000 });
      if (r.status !== 0) throw new Error(`${out} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
      return r.stdout;
    };
    run(['init', '--project', scratch, '--title', 'Order']);
    const session = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'order', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const replies = run(
      ['--project', scratch, '--recipe', 'braindump', '--log-level', 'error'],
      `${session.map((m) => JSON.stringify(m)).join('\n')}\n`,
    );
    if (!replies.includes('"id":2')) throw new Error(`the recorded session did not answer tools/list:\n${replies}`);
    if (!existsSync(order)) throw new Error('the recorded session wrote no order file');
    return order;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const work = join(repo, 'dist', 'bun-exe');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
await build();
// RALPH_MCP_BUN_ORDER=0: one build, its bytecode in the bundle's order.
if (process.env.RALPH_MCP_BUN_ORDER !== '0') await build(recordOrder());
rmSync(work, { recursive: true, force: true });
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
process.stderr.write(
  `executable: ${out.slice(repo.length)} ${mb(statSync(out).size)} (Bun ${Bun.version}, ${process.platform}-${process.arch}, bytecode${process.env.RALPH_MCP_BUN_ORDER !== '0' ? " in a recorded start's order" : ''})\n`,
);
