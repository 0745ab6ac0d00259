import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sampleProject } from '../helpers/project.js';
import { startInProc } from '../helpers/inProc.js';
import { ALL_TOOLS, RECIPES, recipeFlags } from '../helpers/spec.js';
import { GENERATIONS } from '../../src/store/records.js';

/**
 * What each session puts in front of the model on every turn: the model-visible part of tools/list
 * (name + description + inputSchema, per tool, as JSON). Issue 6's targets are ≤ 400 bytes per tool on
 * average over the whole suite and ≤ 6 KB for a task_execution session; each recipe also has its own
 * budget, a little above today's size, so growth fails here and is a deliberate decision.
 */
// What grew each budget, tool by tool, is in this file's history (git log -p). Issue 29 grew five: a
// `type` beside each enum (16 B), without which the MCP Inspector's web form asks for JSON, less what
// shorter argument descriptions paid back (docs/schemas.md).
const BUDGETS: Record<string, number> = {
  braindump: 5_540,
  yap: 6_300,
  ramble: 4_280,
  discuss: 2_180,
  task_execution: 5_500,
  'task_execution --task': 5_890,
  opus_review: 9_450,
  enrichment: 7_320,
  worker: 6_820,
  signals: 3_300, // Ralph's eight verbs
  'full-suite': 400 * ALL_TOOLS.length,
};
const PER_TOOL = 400;
const TASK_EXECUTION_MAX = 6 * 1024;

type Listed = { name: string; description?: string; inputSchema: unknown };
const visible = ({ name, description, inputSchema }: Listed) => JSON.stringify({ name, description, inputSchema });
const visibleBytes = (tools: Listed[]) => tools.reduce((sum, t) => sum + visible(t).length, 0);

const sizes: string[] = [];
// Growth stays visible: every run prints each session's tool count and tools/list size.
after(() => process.stderr.write(`\ntools/list per session:\n${sizes.map((l) => `  ${l}`).join('\n')}\n`));

const projects = { legacy: sampleProject('legacy'), normalized: sampleProject('normalized') };
const sessions: [string, string[]][] = [
  ...RECIPES.map((r): [string, string[]] => [r, recipeFlags(r)]),
  ['full-suite', []],
  // The real task_execution launch has a task, whose id the descriptions then mention.
  ['task_execution --task', ['--recipe', 'task_execution', '--task', '3']],
];

for (const generation of GENERATIONS)
  for (const [label, flags] of sessions) {
    test(`model-visible tools/list within budget: ${flags.join(' ') || 'full suite'} [${generation}]`, async () => {
      const s = await startInProc(projects[generation], flags);
      const { tools } = await s.client.listTools();
      await s.close();
      const bytes = visibleBytes(tools);
      const name = `${label} [${generation}]`.padEnd(32);
      const listed = String(JSON.stringify({ tools }).length).padStart(7);
      const count = String(tools.length).padStart(3);
      sizes.push(`${name} ${count} tools  ${listed} bytes tools/list  ${bytes} bytes visible`);
      const budget = BUDGETS[label]!;
      const over = `${label}: ${bytes} bytes > budget ${budget}`;
      assert.ok(bytes <= budget, `${over}; shorten descriptions, or raise the budget deliberately`);
      const perTool = bytes / tools.length;
      if (label === 'full-suite') assert.ok(perTool <= PER_TOOL, `${perTool.toFixed(1)} bytes per tool > ${PER_TOOL}`);
      if (label.startsWith('task_execution'))
        assert.ok(bytes <= TASK_EXECUTION_MAX, `task_execution ${bytes} > ${TASK_EXECUTION_MAX}`);
    });
  }
