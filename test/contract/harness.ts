import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '../../src/server/log.js';
import type { Project } from '../../src/domain/project.js';
import { Session } from '../../src/session/session.js';
import { openSession, type SessionOptions } from '../../src/session/open.js';
import type { SessionPlan } from '../../src/session/plan.js';
import { GENERATIONS, type Generation } from '../../src/store/records.js';
import type { RalphStore } from '../../src/store/store.js';
import { legacyInvariants, normalizedInvariants } from '../helpers/ralphRead.js';
import { sampleProject } from '../helpers/project.js';

/**
 * The contract suite: one set of tests run against each of Ralph's schema generations (the way hono
 * runs one router suite against each router), in-process, through the very call path the server
 * uses for tools/call (argument validation, scope, one transaction with its audit row). After every
 * call that succeeds and writes, the database must still satisfy Ralph's own read rules for its
 * generation (test/helpers/ralphRead.ts): a write that would make Ralph's task list fail to load
 * fails the test that made it.
 */

export interface Call {
  call(name: string, args?: Record<string, unknown>): CallToolResult;
  /** The structured result of a call that must succeed. */
  ok<T = any>(name: string, args?: Record<string, unknown>): T;
  /** The error of a call that must fail. */
  fail(name: string, args?: Record<string, unknown>): { code: string; message: string; details?: any };
}

export interface InProcSession extends Call {
  plan: SessionPlan;
  store: RalphStore;
  toolNames(): string[];
  close(): void;
}

const log = createLogger('silent');

/** A session exactly as `ralph-mcp --project … <flags>` would build it, without the process. */
export function openInProc(project: Project, flags: Omit<SessionOptions, 'project'> = {}): InProcSession {
  const opened = openSession({ project: project.root, ...flags });
  const { store } = opened;
  const session = new Session(opened.plan, store, log);
  const { plan } = session; // the session's own copy: its scope is what calls change
  const invariants = store.generation === 'normalized' ? normalizedInvariants : legacyInvariants;
  const call = (name: string, args: Record<string, unknown> = {}): CallToolResult => {
    const tool = session.visibleTool(name);
    // A hidden or unknown tool throws the server's JSON-RPC error (not a tool result).
    const result = session.call(name, args) as CallToolResult;
    if (!result.isError && !tool!.def.annotations.readOnlyHint && tool!.def.category !== 'state') {
      assert.deepEqual(
        invariants(project.dbPath),
        [],
        `after ${name} ${JSON.stringify(args)}: Ralph's read rules (${store.generation})`,
      );
    }
    return result;
  };
  return {
    plan,
    store,
    call,
    ok(name, args) {
      const r = call(name, args);
      if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent as any;
    },
    fail(name, args) {
      const r = call(name, args);
      if (!r.isError)
        throw new Error(
          `${name} ${JSON.stringify(args)} was expected to fail but returned ${JSON.stringify(r.structuredContent)}`,
        );
      return (r.structuredContent as { error: { code: string; message: string } }).error;
    },
    toolNames: () => plan.tools.map((t) => t.def.name).filter((n) => !plan.scope.removed.has(n)),
    close: () => store.close(),
  };
}

export interface ContractEnv {
  generation: Generation;
  /** A fresh copy of the sample project (scripts/sampleProject.ts) on this generation. */
  sample(): Project;
  /** A session on `project` (default: a fresh sample), closed after the test file. */
  open(flags?: Omit<SessionOptions, 'project'>, project?: Project): InProcSession & { project: Project };
}

/** Runs `body` once per generation, in a describe block named after it. */
export function contract(name: string, body: (env: ContractEnv) => void): void {
  for (const generation of GENERATIONS) {
    describe(`${name} [${generation}]`, () => {
      const open: InProcSession[] = [];
      after(() => {
        for (const s of open) s.close();
      });
      body({
        generation,
        sample: () => sampleProject(generation),
        open(flags = {}, project = sampleProject(generation)) {
          const s = Object.assign(openInProc(project, flags), { project });
          open.push(s);
          return s;
        },
      });
    });
  }
}
