/**
 * The single executable's entry (scripts/build-exe.mjs): Node's single executable application with this
 * bundle, better-sqlite3's compiled addon and the package's schema files inside, started from a V8
 * startup snapshot: the build runs this file's top level once — every module a serving session uses
 * is evaluated then (the SDK, zod and every tool's schemas: most of a cold start) — and each start
 * resumes from that heap, then runs `start` below. What depends on the machine or the launch (the
 * addon, argv, the environment) is read in `start`, never at a module's top level.
 *
 * An addon can only be loaded from a file, so it is written to a private directory of its own (mkdtemp:
 * a fresh name, owner-only), loaded, and removed at once: the process keeps its mapping, nothing is
 * left behind, and no other user could have swapped the file in between.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import './cli/serve.js';
import { main } from './cli/main.js';
import { useNativeBinding } from './db/sqlite.js';

const ADDON_ASSET = 'better_sqlite3.node';

function loadAddon(): object {
  // node:sea exists only inside a single executable (and Node >= 20.12).
  const sea = createRequire(process.execPath)('node:sea') as { getAsset(key: string): ArrayBuffer };
  const dir = mkdtempSync(join(tmpdir(), 'ralph-mcp-'));
  try {
    const file = join(dir, ADDON_ASSET);
    writeFileSync(file, new Uint8Array(sea.getAsset(ADDON_ASSET)), { flag: 'wx', mode: 0o600 });
    const mod = { exports: {} as object };
    process.dlopen(mod, file);
    return mod.exports;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function start(how: string): void {
  useNativeBinding(loadAddon());
  // How this start got its compiled code (logged with "session started").
  (globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = how;
  main();
}

// Built without a snapshot (scripts/build-exe.mjs falls back to V8's code cache when it cannot make
// one), the top level runs at each start instead.
if (v8.startupSnapshot.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(() => start('snapshot'));
else start('embedded');
