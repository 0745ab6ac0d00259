import v8 from 'node:v8';

/*
 * How a session's V8 starts, and what it keeps of its startup: two settings that each cost about 5 MB
 * of RSS a session holds for good, and bought an idle or lightly used server nothing (measured with
 * `npm run bench` and pipelined get_task calls: calls/s within the machine's noise).
 *
 * - The young generation keeps its initial size (1 MB semi-spaces). V8 doubles it whenever a
 *   scavenge finds most of it still alive, which starting a program always looks like: the modules,
 *   schemas and tools evaluated at startup all live on. Sessions grew it to 8 or 16 MB before their
 *   first answer, and kept it.
 * - No optimising compiler (TurboFan) until the session serves its first request that works on the
 *   project (a tool call, a resource, a prompt: src/server/createServer.ts). During startup it
 *   optimised code that runs once (zod building schemas, module bodies) on background threads, whose
 *   compiler memory stays in their malloc arenas afterwards. The code a session runs per request is
 *   optimised as before, from its first such request on.
 *
 * Both flags are read where V8 uses them, so setting them while running takes effect (Node warns that
 * some flags set late do nothing; these are read, not cached at startup). Bun has no V8 and ignores
 * them. leanStartup runs first thing in a launch (src/launcher.ts, src/sea.ts).
 */

/**
 * Whether TurboFan is held back (false) or back on (true); unset: leanStartup never ran. On the global
 * object, because the launcher and the server are separate bundles, each with its own copy of this file.
 */
const TURBOFAN = Symbol.for('ralph-mcp.turbofan');
const state = globalThis as { [TURBOFAN]?: boolean };

export function leanStartup(): void {
  setFlag('--semi-space-growth-factor=1');
  setFlag('--no-turbofan');
  state[TURBOFAN] = false;
}

/** The session is serving requests: optimise what it runs (once; cheap to call on every request). */
export function optimiseFromNowOn(): void {
  if (state[TURBOFAN] !== false) return;
  state[TURBOFAN] = true;
  setFlag('--turbofan');
}

/**
 * Runs `fn` under the flags the process started with. V8's code cache records the flags it was made
 * under and is used only under the same, and a launch checks it under leanStartup's.
 */
export function underStartupFlags<T>(fn: () => T): T {
  const restore = state[TURBOFAN] === true;
  if (restore) setFlag('--no-turbofan');
  try {
    return fn();
  } finally {
    if (restore) setFlag('--turbofan');
  }
}

function setFlag(flag: string): void {
  try {
    v8.setFlagsFromString(flag);
  } catch {
    // a runtime without V8 flags keeps its own defaults
  }
}
