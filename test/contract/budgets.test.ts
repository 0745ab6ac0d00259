import assert from 'node:assert/strict';
import { test } from 'node:test';
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
const BUDGETS: Record<string, number> = {
  // create_task's duplicate_ok (~70 B), set_task_status's force/reason (~110 B), get_task's
  // "dependents" (~12 B); add_dependency + remove_dependency (~570 B) in yap, opus_review and enrichment.
  // Filters: list_tasks' several statuses and priorities, tag, ready, updated_since and sort
  // (+221 B; get_task's description −20 B): in braindump, yap, ramble, opus_review, enrichment.
  // next_tasks (+299 B) in worker. list_tasks' held_by (+~52 B) wherever list_tasks is.
  // Issue 26, what Ralph's prompts call (docs/ralph-prompts.md): append_feature_learning's category and
  // summary (+~190 B), get_feature_learnings' category (+~120 B), update_task's status and blocked_by in
  // task_execution, worker, opus_review, enrichment (+~150 B), create_discipline (+~880 B) and mcp_servers
  // (+~200 B) in discuss; templates (list_templates + create_task_from_template, +~490 B) on the normalized
  // generation in braindump, yap, opus_review, enrichment. Paid for in part by dropping descriptions
  // that repeat the argument's name (feature and discipline names, depends_on) and a record's propertyNames.
  // Issue 27, list shapes: `fields` (~87 B) on list_tasks, search_tasks and next_tasks, paid for in part by
  // search_tasks' shorter wording and by dropping what a tool's description already says (create_task's and
  // move_task_to_feature's "Existing …", spawn_subtasks' "Default: the parent's", update_feature's acronym
  // default): braindump and yap +~5 B on the normalized generation, worker +50 B (next_tasks).
  // Issue 27: dependency_problems (+~170 B) in yap and enrichment, where a plan's order is worked out.
  // blocked_tasks (~520 B) in yap and opus_review, where a planner or reviewer decides what to unblock or
  // order next (asked with graph, it also names cycles and missing dependencies); opus_review gave
  // get_project_info up for it (25 tools at most; ralph://project serves the same).
  braindump: 5_440,
  yap: 6_160, // + blocked_tasks' graph (~75 B): the dependency check, only when asked
  ramble: 4_200,
  discuss: 2_180,
  // Leases: release_task (~255 B) and task_history (~345 B) in task_execution and worker;
  // task_history (~315 B) in opus_review; claim_next_task's "or one whose lease ran out" (~20 B).
  task_execution: 5_500, // + get_answers
  'task_execution --task': 5_890,
  opus_review: 9_280, // + filters (~200 B) + task_history + held_by + blocked_tasks (with its graph)
  enrichment: 7_210,
  // Issue 27: claim_task (~200 B) in worker only; task_execution claims its --task at its first write.
  worker: 6_820, // + next_tasks (~299 B) + leases + next_tasks' fields (~87 B)
  signals: 3_300, // Ralph's eight verbs
  'full-suite': 400 * ALL_TOOLS.length,
};
const PER_TOOL = 400;
const TASK_EXECUTION_MAX = 6 * 1024;

const visibleBytes = (tools: { name: string; description?: string; inputSchema: unknown }[]) =>
  tools.reduce(
    (sum, t) => sum + JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }).length,
    0,
  );

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
      try {
        const { tools } = await s.client.listTools();
        const bytes = visibleBytes(tools);
        const budget = BUDGETS[label]!;
        assert.ok(
          bytes <= budget,
          `${label}: ${bytes} bytes > budget ${budget}; shorten descriptions, or raise the budget deliberately`,
        );
        if (label === 'full-suite')
          assert.ok(
            bytes / tools.length <= PER_TOOL,
            `${(bytes / tools.length).toFixed(1)} bytes per tool > ${PER_TOOL}`,
          );
        if (label.startsWith('task_execution'))
          assert.ok(bytes <= TASK_EXECUTION_MAX, `task_execution ${bytes} > ${TASK_EXECUTION_MAX}`);
      } finally {
        await s.close();
      }
    });
  }
