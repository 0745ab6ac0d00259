import assert from 'node:assert/strict';
import type { Project } from '../../src/domain/project.js';
import { query } from './project.js';

/** Assertions shared by the tests: rows read back with SQL, dates, and JSON-array columns. */

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
