import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Project } from '../../src/domain/project.js';
import { TOOL_NAMES, toolsAbsentOn } from '../../src/registry/registry.js';
import { GENERATIONS } from '../../src/store/records.js';
import {
  TOOL_SPECS,
  UNLIMITED_OK,
  allFields,
  checkToolResult,
  keyOf,
  limitRows,
  toolCase,
  topOf,
  type ArgCase,
  type FieldSpec,
  type LimitRow,
} from '../../scripts/stress/fuzz.js';
import { query, sampleProject } from '../helpers/project.js';
import { startSession, type Session } from '../helpers/server.js';
import { ALL_TOOLS, VALID_ARGS, inSpecOrder } from '../helpers/spec.js';

/**
 * Issue 7, tool arguments: property-based cases for every tool's input schema (fast-check, fixed
 * seed) through one long-lived session, and every size limit probed one over and exactly at. The
 * fast version of `npm run stress` (scripts/stress/fuzz.ts holds the generators and the checks).
 */

const SEED = 0x5eed_0007;
const RUNS_PER_TOOL = 40;

// Each generation: the same schemas, but each store's writes behind them (the templates tools exist on
// the normalized generation only, so only there are they fuzzed).
for (const generation of GENERATIONS)
  describe(`tool arguments fuzz (fast-check) [${generation}]`, () => {
    const absent = new Set(toolsAbsentOn(generation));
    const specs = TOOL_SPECS.filter((t) => !absent.has(t.name));
    let p: Project;
    let s: Session;
    before(async () => {
      p = sampleProject(generation);
      s = await startSession(p);
      await s.client.listTools(); // the client then checks every success against the tool's outputSchema
    });
    after(() => s.close());

    test('the fuzzed registry is the full suite', async () => {
      assert.deepEqual(
        await s.toolNames(),
        [...TOOL_NAMES].filter((n) => !absent.has(n)),
      );
      assert.deepEqual(await s.toolNames(), inSpecOrder(ALL_TOOLS, generation));
      assert.deepEqual([...TOOL_NAMES].sort(), [...ALL_TOOLS].sort());
    });

    test(`every tool, ${RUNS_PER_TOOL} cases each: a tool result, invalid_argument naming the field for a bad shape, never internal`, async (t) => {
      let cases = 0;
      let malformed = 0;
      const outcomes: Record<string, number> = {};
      for (const tool of specs) {
        await fc.assert(
          fc.asyncProperty(toolCase(tool), async (c: ArgCase) => {
            cases++;
            if (c.expect === 'invalid') malformed++;
            const r = await s.call(c.tool, c.args); // a JSON-RPC error (or an output-schema mismatch) throws here
            const code = r.isError ? String((r.structuredContent as any)?.error?.code) : 'ok';
            outcomes[code] = (outcomes[code] ?? 0) + 1;
            const problem = checkToolResult(c, r);
            if (problem) throw new Error(problem);
          }),
          { seed: SEED, numRuns: RUNS_PER_TOOL, endOnFailure: true },
        );
      }
      t.diagnostic(
        `${cases} cases over ${specs.length} tools (${malformed} malformed), outcomes ${JSON.stringify(outcomes)}`,
      );
      assert.equal(cases, RUNS_PER_TOOL * specs.length);
      assert.ok(outcomes.ok! > 0 && outcomes.invalid_argument! > 0, 'both accepted and refused calls were made');
      assert.equal(outcomes.internal, undefined);
    });

    test('afterwards the server answers and the database passes integrity_check', async () => {
      assert.equal((await s.ok('get_project_info')).title, 'Recipe Box');
      assert.match(s.stderr(), /"msg":"call"/); // it logged calls …
      assert.doesNotMatch(s.stderr(), /"tool failed"/, 'no tool failed with an internal error');
      assert.deepEqual(query(p, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    });
  });

// ---- limits ------------------------------------------------------------------------------------

/** 'tasks[].acceptance_criteria[]' → ['tasks', '[]', 'acceptance_criteria', '[]'] */
const segments = (path: string) => path.replace(/\[\]/g, '.[]').split('.').filter(Boolean);

/** A copy of `obj` with the value at `path` replaced (a list on the way becomes a one-element list). */
function setPath(obj: Record<string, any>, segs: string[], value: unknown): Record<string, any> {
  const [key, ...rest] = segs as [string, ...string[]];
  if (rest.length === 0) return { ...obj, [key]: value };
  if (rest[0] === '[]') {
    const after = rest.slice(1);
    if (after.length === 0) return { ...obj, [key]: [value] };
    const first = Array.isArray(obj[key]) && obj[key][0] ? obj[key][0] : {};
    return { ...obj, [key]: [setPath(first, after, value)] };
  }
  return { ...obj, [key]: setPath(obj[key] ?? {}, rest, value) };
}

/** A string of exactly `n` characters that the field's own rules accept where they can be met. */
function stringOf(field: FieldSpec, n: number, i = 0): string {
  const key = keyOf(field);
  if (key === 'color') return `#${'a'.repeat(n - 1)}`;
  if (/path|file/.test(key)) {
    // segments of at most 100 characters: a 500-character file name is the file system's problem, not ours
    const body = Array.from({ length: n }, (_, k) =>
      (k + 1) % 101 === 0 ? '/' : String.fromCharCode(97 + ((k + i) % 26)),
    ).join('');
    return `${body.slice(0, -1)}${body.endsWith('/') ? 'x' : body.slice(-1)}`;
  }
  const base = `${String.fromCharCode(97 + (i % 26))}${i}`;
  return (base + 'a'.repeat(n)).slice(0, n);
}

/** `n` distinct valid-looking elements for a list field. */
function elementsOf(list: FieldSpec, n: number, base: unknown): unknown[] {
  const el = list.element!;
  return Array.from({ length: n }, (_, i) => {
    if (el.kind === 'string') return stringOf(el, Math.min(el.max ?? 20, 12), i);
    if (el.kind === 'number') return Math.min(i + 1, el.max ?? Infinity);
    if (el.kind === 'object') return { ...(base as object), title: `part ${i}` };
    return i;
  });
}

/** A fresh draft for enrich_task (enriching makes a task pending). */
const DRAFT = { feature: 'recipes', discipline: 'backend', title: 'draft', status: 'draft', duplicate_ok: true };

const limitText = (r: LimitRow) =>
  r.kind === 'range' ? `${r.min}–${r.max}` : `${r.max.toLocaleString('en-US')} ${r.kind}`;

describe('size limits: one over is invalid_argument stating the limit; exactly at it is accepted', () => {
  let s: Session;
  /** A feature and a discipline whose names are exactly at the name limit, so name fields at the limit find a row. */
  const LONG_NAME = stringOf({ path: 'name', kind: 'string', optional: false }, 64);
  before(async () => {
    // Normalized: every tool exists there (the templates tools do not on legacy); limits are the schemas'.
    s = await startSession(sampleProject('normalized'));
    await s.ok('create_feature', { name: LONG_NAME, display_name: 'Long name' });
    await s.ok('create_discipline', { name: LONG_NAME, display_name: 'Long name', icon: 'Code', color: '#123456' });
  });
  after(() => s.close());

  test('every string and list field of every tool has a limit', () => {
    const missing: string[] = [];
    for (const t of TOOL_SPECS) {
      for (const f of allFields(t.input)) {
        if ((f.kind === 'string' || f.kind === 'array') && f.max === undefined && !(keyOf(f) in UNLIMITED_OK))
          missing.push(`${t.name}.${f.path}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  test('each limit, probed', async (t) => {
    // claim_next_task last: a successful claim scopes the session to the claimed task.
    const rows = limitRows().sort(
      (a, b) => Number(a.tool === 'claim_next_task') - Number(b.tool === 'claim_next_task'),
    );
    const specs = new Map(TOOL_SPECS.map((x) => [x.name, x]));
    const atLimitRefused: string[] = [];
    let probes = 0;
    let unique = 0;
    for (const row of rows) {
      const field = allFields(specs.get(row.tool)!.input).find((f) => f.path === row.field)!;
      const segs = segments(row.field);
      let base: Record<string, any> = { ...VALID_ARGS[row.tool as keyof typeof VALID_ARGS] };
      // Creating tools get a fresh name each time, so "at the limit" is not refused as a duplicate.
      const creates = /^create_(feature|discipline)$/.test(row.tool);
      if (creates && keyOf(field) !== 'name') base = { ...base, name: `lim-${++unique}` };
      if (row.tool === 'enrich_task') base = { ...base, id: (await s.ok('create_task', DRAFT)).task.id };
      const probe = (value: unknown) => {
        probes++;
        return s.call(row.tool, setPath(base, segs, value));
      };
      let over: unknown;
      let at: unknown;
      let under: unknown;
      if (row.kind === 'characters') {
        over = stringOf(field, row.max + 1);
        at = stringOf(field, row.max, creates && keyOf(field) === 'name' ? 1 : 0);
      } else if (row.kind === 'items') {
        const sample =
          segs.length > 1 ? undefined : (VALID_ARGS[row.tool as keyof typeof VALID_ARGS] as any)[segs[0]!]?.[0];
        over = elementsOf(field, row.max + 1, sample);
        at = elementsOf(field, row.max, sample);
      } else {
        over = row.max + 1;
        at = row.max;
        under = row.min! - 1;
      }
      for (const [value, label, limit] of [
        [over, 'over', row.max],
        ...(under === undefined ? [] : [[under, 'under', row.min!]]),
      ] as [unknown, string, number][]) {
        const r = await probe(value);
        const err = (r.structuredContent as any)?.error;
        const where = `${row.tool}.${row.field} ${label} the limit (${limitText(row)})`;
        assert.equal(r.isError, true, `${where}: accepted`);
        assert.equal(err.code, 'invalid_argument', `${where}: ${err.code}: ${err.message}`);
        assert.ok(err.message.includes(`${topOf(row.field)}`), `${where}: the message names the field: ${err.message}`);
        assert.ok(err.message.includes(String(limit)), `${where}: the message states the limit: ${err.message}`);
      }
      const r = await probe(at);
      if (r.isError) {
        const err = (r.structuredContent as any).error;
        assert.notEqual(err.code, 'internal', `${row.tool}.${row.field} at the limit: ${err.message}`);
        assert.doesNotMatch(
          err.message,
          /Too big|Too small/,
          `${row.tool}.${row.field} exactly at the limit was refused for its size: ${err.message}`,
        );
        atLimitRefused.push(`${row.tool}.${row.field}: ${err.code}: ${err.message.slice(0, 120)}`);
      }
    }
    t.diagnostic(
      `${rows.length} limits, ${probes} probes; ${rows.length - atLimitRefused.length} accepted exactly at the limit`,
    );
    for (const line of atLimitRefused) t.diagnostic(`at the limit, refused for another reason: ${line}`);

    const table = [
      '| tool | field | limit |',
      '|---|---|---|',
      ...rows.map((r) => `| \`${r.tool}\` | \`${r.field}\` | ${limitText(r)} |`),
    ].join('\n');
    writeFileSync('/tmp/limits.md', `${table}\n`);
  });
});
