/**
 * dist/ralph-mcp.js, the command users run: it loads the server bundle (dist/ralph-mcp.cjs) through V8's
 * code cache, so a start deserialises compiled code instead of compiling it. Node 20 has no compile cache
 * for ES modules, hence a CommonJS bundle compiled with vm.Script's cachedData.
 *
 * The cache is only an optimisation: a cache that is not this user's own (cacheDir.ts), stale or
 * unwritable means compiling as if there were none.
 */
import {
  closeSync,
  existsSync,
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
import { CACHE_KINDS, cacheDir, markUsed, openOwnFile, pruneCaches } from './cacheDir.js';
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
    markUsed(own);
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(own.fd);
  }
}

/** Writes the cache whole (a temp file renamed over it) and drops caches no start has used lately. Best effort. */
function writeCache(dir: string, file: string, script: vm.Script): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const data = underStartupFlags(() => script.createCachedData());
    writeFileSync(tmp, data, { flag: 'wx', mode: 0o600 });
    renameSync(tmp, file);
    pruneCaches(dir, file, CACHE_KINDS.code);
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
  // ASCII only (scripts/bundle.mjs checks), so no UTF-8 decoding. Compiled as read, not wrapped or
  // trimmed: V8 keeps the source while the code lives, and a changed string would be a second copy.
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
    // Written once a run has lasted a second, so it holds what the first requests compiled too; a run
    // that ends sooner (--version, a refused launch) compiled too little to be worth caching. A stdio
    // session makes the SDK's Server at its first call (src/transport/sdkOnDemand.ts) and asks, through
    // __ralphCodeCacheAfter, for the cache to wait for it too, so that it holds the SDK's code as well
    // (measured: the first call 20 ms instead of 34, the start no slower); else it is written at exit.
    let after: Promise<void> | undefined;
    (globalThis as { __ralphCodeCacheAfter?: (p: Promise<void>) => void }).__ralphCodeCacheAfter = (p) => {
      after = p;
    };
    setTimeout(() => {
      if (!after) write();
      // A tick later: the answer of the call that made the Server is sent first.
      else void after.then(() => setTimeout(write, 0));
    }, 1000).unref();
    process.once('exit', () => {
      if (process.uptime() >= 1) write();
    });
  }
  runBundle(script.runInThisContext() as BundleMain);
}

/**
 * Under Bun (JavaScriptCore: no V8 code cache to keep), the bundle Bun built with its bytecode
 * (scripts/bundle-bun.mjs), which Bun loads without parsing when the same Bun version made it; without
 * that bundle (a build without Bun), the Node bundle, compiled at each start.
 */
function runUnderBun(): void {
  const bunBundle = join(here, 'ralph-mcp.bun.js');
  const built = existsSync(bunBundle);
  (globalThis as { __ralphCodeCache?: string }).__ralphCodeCache = !built
    ? 'off'
    : existsSync(`${bunBundle}.jsc`)
      ? 'bun bytecode'
      : 'bun source';
  if (built) createRequire(payload)(bunBundle);
  else
    runBundle(
      vm.runInThisContext(readFileSync(payload, 'utf8').replace(/^#!.*/, ''), { filename: payload }) as BundleMain,
    );
}

leanStartup();
if (typeof (process.versions as Record<string, string | undefined>).bun === 'string') runUnderBun();
else runWithCodeCache();
