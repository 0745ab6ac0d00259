import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLI } from '../../helpers/env.js';
import { inspect } from '../../helpers/inspector.js';
import { sampleProject } from '../../helpers/project.js';
import { ALL_TOOLS, inSpecOrder } from '../../helpers/spec.js';
import { GENERATIONS } from '../../../src/store/records.js';

/**
 * Every tool's schemas pass the MCP Inspector's own portability checker (its CLI's `tools/list
 * --strict`, the same lint its web client shows as a warning triangle per tool): no error and no
 * warning, over the full suite (no --recipe) on both generations. The checker's rules, as read in
 * Inspector 2.12 (docs/schemas.md): no `type` array (a nullable field is `anyOf` of single types), no
 * schema without any validation keyword, no bare `true`/`false` schema, no `$ref` outside the document.
 */
for (const generation of GENERATIONS)
  test(`the Inspector's schema checker finds nothing in the full suite [${generation}]`, async () => {
    const p = sampleProject(generation);
    const r = await inspect(
      [process.execPath, CLI, '--project', p.root],
      ['--method', 'tools/list', '--strict', '--format', 'json'],
    );
    // --strict exits 6 on an error-severity finding; warnings are listed (schemaFindings) but exit 0.
    assert.equal(r.code, 0, r.stderr);
    type Finding = { rule: string; severity: string; schema: string; path: string };
    const out = JSON.parse(r.stdout) as {
      result: { tools: { name: string }[] };
      schemaFindings?: { toolName: string; findings: Finding[] }[];
    };
    assert.deepEqual(
      out.result.tools.map((t) => t.name),
      inSpecOrder(ALL_TOOLS, generation),
    );
    const found = (out.schemaFindings ?? []).flatMap(({ toolName, findings }) =>
      findings.map((f) => `${f.severity} ${f.rule}: ${toolName} ${f.schema}.${f.path}`),
    );
    assert.deepEqual(found, []);
  });
