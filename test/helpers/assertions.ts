import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { dump, query, sampleProject } from './project.js';
import { startSession, type Session } from './server.js';

/**
 * Assertions and small helpers shared by the tool tests in test/tools/: reading rows back with SQL,
 * checking dates and JSON columns, proving a refused call changed nothing, and one session per suite.
 */

/** A row read back with SQL: columns by name, loosely typed. */
export type AnyRow = Record<string, any>;

/** Every row a SQL query returns on the project's database (read on a second connection). */
export const rows = (p: Project, sql: string, ...params: unknown[]): AnyRow[] => query<AnyRow>(p, sql, ...params);

/** The first row a SQL query returns on the project's database, or undefined. */
export const row = (p: Project, sql: string, ...params: unknown[]): AnyRow | undefined => rows(p, sql, ...params)[0];

/** A calendar day, YYYY-MM-DD. */
export const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/** An RFC 3339 timestamp in UTC, ending in Z (fractional seconds optional). */
export const RFC3339_UTC_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** A feature or discipline acronym: exactly 4 characters of A-Z and 0-9. */
export const ACRONYM_RE = /^[A-Z0-9]{4}$/;

const pad = (n: number) => String(n).padStart(2, '0');

/** "Today" as YYYY-MM-DD: UTC or local, now or a minute ago (a run crossing midnight must not flake). */
function todays(): string[] {
  const out = new Set<string>();
  for (const d of [new Date(), new Date(Date.now() - 60_000)]) {
    out.add(d.toISOString().slice(0, 10));
    out.add(`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`);
  }
  return [...out];
}

/** Asserts that `value` is today's date as a YYYY-MM-DD string. */
export function assertToday(value: unknown, what: string): void {
  assert.equal(typeof value, 'string', `${what} should be a date string, got ${JSON.stringify(value)}`);
  assert.match(value as string, DAY_RE, what);
  assert.ok(todays().includes(value as string), `${what} ${String(value)} is not today (${todays().join(' / ')})`);
}

/** Asserts that `value` is an RFC 3339 UTC timestamp (ending in Z) within two minutes of now. */
export function assertRecentTimestamp(value: unknown, what: string): void {
  assert.equal(typeof value, 'string', what);
  assert.match(value as string, RFC3339_UTC_RE, `${what} must be RFC 3339 UTC ending in Z`);
  assert.ok(Math.abs(Date.now() - Date.parse(value as string)) < 120_000, `${what} ${String(value)} is not recent`);
}

/** Asserts that a JSON-array TEXT column is a string holding a JSON array, and returns the array. */
export function jsonArray(value: unknown, what: string): any[] {
  assert.equal(typeof value, 'string', `${what} must be stored as JSON text`);
  const parsed: unknown = JSON.parse(value as string);
  assert.ok(Array.isArray(parsed), `${what} must be a JSON array, got ${String(value)}`);
  return parsed;
}

/** How makeRefused checks a refusal: what must stay unchanged, and whether the error must carry a message. */
export interface RefusalCheck {
  /** A snapshot of everything the refused call must leave unchanged (default: a dump of the whole database). */
  snapshot?: (p: Project) => unknown;
  /** What the snapshot covers, for the failure message (default: 'the database'). */
  what?: string;
  /** Also assert that the error's message is not empty. */
  requireMessage?: boolean;
}

/**
 * Builds a `refused(s, p, name, args, code)`: the call must fail with `code` and leave the snapshot unchanged; it
 * returns the error.
 */
export function makeRefused({ snapshot = dump, what = 'the database', requireMessage = false }: RefusalCheck = {}) {
  return async (s: Session, p: Project, name: string, args: Record<string, unknown>, code: string) => {
    const before = snapshot(p);
    const err = await s.fail(name, args);
    assert.equal(err.code, code, `${name} ${JSON.stringify(args)}: expected ${code}, got ${err.code}: ${err.message}`);
    if (requireMessage) assert.ok(err.message.length > 0, 'an error carries a message');
    assert.deepEqual(snapshot(p), before, `${name} ${JSON.stringify(args)} was refused but changed ${what}`);
    return err;
  };
}

/** Calls a tool that must be refused with `code`, proves the database did not change, and returns the error. */
export const refused = makeRefused();

/**
 * The project and session of a useSession suite; read them inside tests and hooks, not while the suite is being
 * defined.
 */
export interface SessionContext {
  readonly p: Project;
  readonly s: Session;
}

/** The project and the two sessions of a useTwoSessions suite (read inside tests, like SessionContext). */
export interface TwoSessionContext {
  readonly p: Project;
  readonly a: Session;
  readonly b: Session;
}

/**
 * Registers before/after hooks in the enclosing describe: make a project, start one session per flag list on it
 * (together), close them all.
 */
function sessionHooks(makeProject: () => Project, flagLists: string[][]) {
  let p: Project | undefined;
  let sessions: Session[] = [];
  before(async () => {
    const project = makeProject();
    p = project;
    sessions = await Promise.all(flagLists.map((flags) => startSession(project, flags)));
  });
  after(async () => {
    await Promise.all(sessions.map((x) => x.close()));
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the suite's session has not started (read ctx.p / ctx.s inside a test)");
    return value;
  };
  return { project: () => started(p), session: (i: number) => started(sessions[i]) };
}

/**
 * In the enclosing describe: makes a project (default: the sample project) and starts a session on it before the tests,
 * closes it after.
 */
export function useSession(flags: string[] = [], makeProject: () => Project = sampleProject): SessionContext {
  const hooks = sessionHooks(makeProject, [flags]);
  return {
    get p() {
      return hooks.project();
    },
    get s() {
      return hooks.session(0);
    },
  };
}

/**
 * In the enclosing describe: one sample project and two sessions on it (for concurrent writers), started before the
 * tests, closed after.
 */
export function useTwoSessions(flagsA: string[] = [], flagsB: string[] = []): TwoSessionContext {
  const hooks = sessionHooks(sampleProject, [flagsA, flagsB]);
  return {
    get p() {
      return hooks.project();
    },
    get a() {
      return hooks.session(0);
    },
    get b() {
      return hooks.session(1);
    },
  };
}
