import v8 from 'node:v8';

/*
 * Through start-up the young generation does not grow and TurboFan is off: start-up would otherwise
 * grow the one and make the other optimise run-once code, memory a waiting session keeps for good. Both
 * go back to V8's defaults at the first request that works on the project (server/createServer.ts);
 * V8 reads them where it uses them, so setting them while running takes effect.
 */

/** The flags a session starts under, and those it serves under (V8's defaults). */
const STARTUP_FLAGS = ['--semi-space-growth-factor=1', '--no-turbofan'];
const SERVING_FLAGS = ['--semi-space-growth-factor=2', '--turbofan'];

/**
 * Bun's counterpart (JavaScriptCore has no V8 flags): its JIT policy, the factor on the tier-up thresholds,
 * so that the run-once code of a start stays in the interpreter instead of keeping the JIT's threads busy
 * compiling it (measured: 48 → 35 ms of CPU to a Bun executable's tools/list reply); 1 while serving.
 * The Bun executable starts under it already (scripts/build-exe-bun.mjs).
 */
export const BUN_STARTUP_JIT_POLICY = 100;
const bunJit = (globalThis as { Bun?: { unsafe?: { setJITPolicy?: (scale: number) => void } } }).Bun?.unsafe;

/**
 * Which flags are in force; unset: leanStartup never ran. On the global object, because the launcher
 * and the server are separate bundles, each with its own copy of this file.
 */
const PHASE = Symbol.for('ralph-mcp.v8Phase');
const state = globalThis as { [PHASE]?: 'startup' | 'serving' };

/** Start-up's flags; runs first thing in a launch (launcher.ts, sea.ts). */
export function leanStartup(): void {
  setFlags(STARTUP_FLAGS);
  bunJit?.setJITPolicy?.(BUN_STARTUP_JIT_POLICY);
  state[PHASE] = 'startup';
}

/** The session serves requests: V8's defaults from now on (once; cheap to call on every request). */
export function startServing(): void {
  if (state[PHASE] !== 'startup') return;
  state[PHASE] = 'serving';
  setFlags(SERVING_FLAGS);
  bunJit?.setJITPolicy?.(1);
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
