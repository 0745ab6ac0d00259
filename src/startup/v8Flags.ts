import v8 from 'node:v8';

/*
 * How a session's V8 starts, and what it keeps of its startup: two settings that each cost about 5 MB
 * of RSS a session held for good, for nothing until it serves requests. Both go back to V8's defaults
 * at the session's first request that works on the project (a tool call, a resource, a prompt:
 * src/server/createServer.ts), so a session serving calls runs as fast as before; a session waiting
 * for its agent stays small.
 *
 * - The young generation keeps its initial size (1 MB semi-spaces) through startup. V8 doubles it
 *   whenever a scavenge finds most of it still alive, which starting a program always looks like: the
 *   modules and schemas evaluated at startup all live on. Sessions grew it to 8 or 16 MB before their
 *   first answer, and kept it. Serving, it may grow again as V8 sees fit (answers are short-lived
 *   garbage, and a small young generation made pipelined calls ~7% slower).
 * - No optimising compiler (TurboFan) through startup. It optimised code that runs once (zod building
 *   schemas, module bodies) on background threads, whose compiler memory stays in their malloc arenas
 *   afterwards. The code a session runs per request is optimised as before.
 *
 * Both flags are read where V8 uses them, so setting them while running takes effect (Node warns that
 * some flags set late do nothing; these are read, not cached at startup). Bun has no V8 and ignores
 * them. leanStartup runs first thing in a launch (src/startup/launcher.ts, src/startup/sea.ts).
 */

/** The flags a session starts under, and those it serves under (V8's defaults). */
const STARTUP_FLAGS = ['--semi-space-growth-factor=1', '--no-turbofan'];
const SERVING_FLAGS = ['--semi-space-growth-factor=2', '--turbofan'];

/**
 * Which flags are in force; unset: leanStartup never ran. On the global object, because the launcher
 * and the server are separate bundles, each with its own copy of this file.
 */
const PHASE = Symbol.for('ralph-mcp.v8Phase');
const state = globalThis as { [PHASE]?: 'startup' | 'serving' };

export function leanStartup(): void {
  setFlags(STARTUP_FLAGS);
  state[PHASE] = 'startup';
}

/** The session serves requests: V8's defaults from now on (once; cheap to call on every request). */
export function startServing(): void {
  if (state[PHASE] !== 'startup') return;
  state[PHASE] = 'serving';
  setFlags(SERVING_FLAGS);
}

/**
 * Runs `fn` under the flags the process started with. V8's code cache records the flags it was made
 * under and is used only under the same, and a launch checks it under leanStartup's.
 */
export function underStartupFlags<T>(fn: () => T): T {
  const serving = state[PHASE] === 'serving';
  if (serving) setFlags(STARTUP_FLAGS);
  try {
    return fn();
  } finally {
    if (serving) setFlags(SERVING_FLAGS);
  }
}

function setFlags(flags: readonly string[]): void {
  for (const flag of flags) {
    try {
      v8.setFlagsFromString(flag);
    } catch {
      // a runtime without V8 flags keeps its own defaults
    }
  }
}
