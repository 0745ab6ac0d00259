/**
 * The single executable's entry (scripts/build-exe.mjs): Node's single executable application with this
 * bundle and better-sqlite3's compiled addon inside. An addon can only be loaded from a file, so it is
 * written to a private directory of its own (mkdtemp: a fresh name, owner-only), loaded, and removed at
 * once: the process keeps its mapping, nothing is left behind, and no other user could have swapped
 * the file in between. Then the command line runs as in the bundle.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

useNativeBinding(loadAddon());
// V8's code cache is inside the executable (sea-config useCodeCache), not in a cache directory.
(globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = 'embedded';
// The command line, as dist/ralph-mcp.cjs runs it (after the addon is known to the driver).
void import('./cli.js');
