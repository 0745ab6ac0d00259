/**
 * dist/ralph-mcp.js, the command users run: it loads the server (dist/ralph-mcp.cjs, the whole bundle)
 * through V8's code cache. Compiling the bundle and the functions a session calls is a third of
 * a cold start; with the cache V8 deserialises the compiled code instead. Node 20 offers no cache for
 * ES modules (module.enableCompileCache is Node 22), so the bundle is CommonJS and compiled here with
 * vm.Script's cachedData, the mechanism Node's own compile cache and v8-compile-cache use.
 *
 * The cache lives in $RALPH_MCP_CACHE_DIR, else $XDG_CACHE_HOME/ralph-mcp, else ~/.cache/ralph-mcp
 * (RALPH_MCP_CACHE_DIR=off: none), one file per bundle and Node version. It is only an optimisation,
 * and compiled code is code: it is used only from a directory that is ours and not writable by others,
 * from a regular file that is ours (no symlink followed); anything else, a stale file (V8 checks the
 * source and its own version and flags) or an unwritable directory, and the bundle is compiled as if
 * there were no cache. A missing or rejected cache is written once a run has lasted a second (a
 * serving session: a --version or a refused launch compiles too little to be worth keeping), so that
 * it holds what startup and the first requests compiled.
 */
import {
  closeSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { cacheDir, openOwnFile } from './cacheDir.js';
import { leanStartup, underStartupFlags } from './v8Flags.js';

const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const here = dirname(fileURLToPath(import.meta.url));
const payload = join(here, 'ralph-mcp.cjs');

/** The cache file's name: this bundle (size and time) under this Node (V8 version) and architecture. */
function cacheFile(dir: string): string {
  const st = statSync(payload);
  return join(dir, `bundle-${process.version}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}.v8cache`);
}

function readCache(file: string): Buffer | undefined {
  const own = openOwnFile(file, MAX_CACHE_BYTES);
  if (!own) return undefined;
  try {
    const buf = Buffer.alloc(own.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(own.fd, buf, off, buf.length - off, off);
      if (n === 0) return undefined;
      off += n;
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(own.fd);
  }
}

/** Writes the cache whole (a temp file renamed over it) and drops other bundles' caches. Best effort. */
function writeCache(dir: string, file: string, script: vm.Script): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const data = underStartupFlags(() => script.createCachedData());
    writeFileSync(tmp, data, { flag: 'wx', mode: 0o600 });
    renameSync(tmp, file);
    for (const name of readdirSync(dir))
      if (name.startsWith('bundle-') && name.endsWith('.v8cache') && join(dir, name) !== file)
        unlinkSync(join(dir, name));
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
  }
}

/**
 * The bundle's entry: the file is one function expression, a CommonJS module's wrapper and body (scripts/bundle.mjs).
 */
type BundleMain = (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;

function runBundle(main: BundleMain): void {
  const mod = { exports: {} };
  main.call(mod.exports, mod.exports, createRequire(payload), mod, payload, here);
}

/** Compiles and runs the bundle through the code cache (Node). */
function runWithCodeCache(): void {
  // ASCII only (scripts/bundle.mjs checks): read as such, no UTF-8 decoding (~3.5 ms a MB). The
  // string is compiled as read, not wrapped or trimmed first: V8 keeps the source of what it compiles
  // for as long as the code lives, and a changed string would be a second copy of the bundle.
  const source = readFileSync(payload, 'latin1');
  const dir = cacheDir();
  const file = dir && cacheFile(dir);
  const cached = file ? readCache(file) : undefined;
  const script = new vm.Script(source, { filename: payload, cachedData: cached });
  /** How this start compiled the server (logged with "session started"). */
  (globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = !file
    ? 'off'
    : !cached
      ? 'none'
      : script.cachedDataRejected
        ? 'rejected'
        : 'used';
  if (dir && file && (!cached || script.cachedDataRejected)) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      writeCache(dir, file, script);
    };
    // A run that ends sooner (--version, a refused launch) compiled too little to be worth caching.
    setTimeout(() => {
      write();
    }, 1000).unref();
    process.once('exit', () => {
      if (process.uptime() >= 1) write();
    });
  }
  runBundle(script.runInThisContext() as BundleMain);
}

leanStartup();
// Bun compiles with JavaScriptCore, not V8: no V8 code cache to keep.
if (typeof (process.versions as Record<string, string | undefined>).bun === 'string') {
  (globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = 'off';
  runBundle(
    vm.runInThisContext(readFileSync(payload, 'utf8').replace(/^#!.*/, ''), { filename: payload }) as BundleMain,
  );
} else {
  runWithCodeCache();
}
