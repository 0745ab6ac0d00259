/**
 * The single executable's entry (scripts/build-exe.mjs), started from a V8 startup snapshot of this
 * file's evaluated top level; each start resumes from that heap and runs `start`. So what depends on the
 * machine or the launch (the addon, argv, the environment) is read in `start`, never at a top level.
 *
 * An addon loads only from a file: it is kept in the cache directory (cacheDir.ts) and loaded through the
 * descriptor that was checked (owner, mode, and its SHA-256 against the embedded one: /proc/self/fd), so
 * the file loaded is the one checked; a cached file that fails is rewritten; without a usable
 * cache directory it goes to a fresh owner-only directory, loaded and removed at once.
 */
import { closeSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import './embeddedFiles.js';
import { CACHE_KINDS, cacheDir, holdsExactly, markUsed, openOwnFile, pruneCaches } from './cacheDir.js';
import '../cli/serve.js';
import { main } from '../cli/main.js';
import { useNativeBinding } from '../db/sqlite.js';
import { installStartup } from './buildTables.js';
import { leanStartup } from './v8Flags.js';

const ADDON_ASSET = 'better_sqlite3.node';
/** The addon's SHA-256 and size, written in by scripts/build-exe.mjs. */
declare const __RALPH_ADDON__: { sha256: string; bytes: number };

const addonBytes = (): Uint8Array => {
  // node:sea exists only inside a single executable (and Node >= 20.12).
  const sea = createRequire(process.execPath)('node:sea') as { getAsset(key: string): ArrayBuffer };
  return new Uint8Array(sea.getAsset(ADDON_ASSET));
};

function dlopen(path: string): object {
  const mod = { exports: {} as object };
  process.dlopen(mod, path);
  return mod.exports;
}

/** The cached copy, loaded, if it is there and usable. */
function loadCached(file: string): object | undefined {
  const own = openOwnFile(file, __RALPH_ADDON__.bytes);
  if (!own) return undefined;
  try {
    // Its name says which build it is from, but only its bytes say it is that build's addon.
    if (!holdsExactly(own.fd, __RALPH_ADDON__)) return undefined;
    const addon = dlopen(`/proc/self/fd/${own.fd}`);
    markUsed(own);
    return addon;
  } catch {
    return undefined;
  } finally {
    closeSync(own.fd);
  }
}

/** How the addon was loaded this start: from the cache, written to it now, or from a temporary copy. */
let addonSource: 'cached' | 'written' | 'temporary' = 'temporary';

function loadAddon(): object {
  const dir = cacheDir();
  if (dir) {
    const file = join(dir, `better_sqlite3-${__RALPH_ADDON__.sha256.slice(0, 32)}.node`);
    const cached = loadCached(file);
    if (cached) {
      addonSource = 'cached';
      return cached;
    }
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, addonBytes(), { flag: 'wx', mode: 0o600 });
      renameSync(tmp, file);
      const written = loadCached(file);
      if (written) {
        addonSource = 'written';
        // Another version's addon goes once unused for weeks, as code caches do (cacheDir.ts).
        try {
          pruneCaches(dir, file, CACHE_KINDS.addon);
        } catch {
          // best effort
        }
        return written;
      }
    } catch {
      rmSync(tmp, { force: true });
    }
  }
  const own = mkdtempSync(join(tmpdir(), 'ralph-mcp-'));
  try {
    const file = join(own, ADDON_ASSET);
    writeFileSync(file, addonBytes(), { flag: 'wx', mode: 0o600 });
    return dlopen(file);
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}

function start(how: string): void {
  leanStartup();
  useNativeBinding(loadAddon());
  // How this start got its compiled code and its addon (logged with "session started").
  (globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = `${how}, addon ${addonSource}`;
  main();
}

installStartup(); // at evaluation: the startup snapshot keeps the tables installed

// Built without a snapshot (scripts/build-exe.mjs falls back to V8's code cache when it cannot make
// one), the top level runs at each start instead.
if (v8.startupSnapshot.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(() => start('snapshot'));
else start('embedded');
