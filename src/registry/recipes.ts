import { VERBS as SIGNAL_VERBS } from '../domain/signals.js';

/**
 * Recipes are data: SPEC-070's allow-lists. A recipe names the tools its sessions may see; everything
 * else is hidden. `narrow` restricts which arguments a tool accepts in that recipe (the schema the
 * session sees has only those fields).
 */
export interface Recipe {
  name: string;
  purpose: string;
  allow: readonly string[];
  narrow?: Readonly<Record<string, readonly string[]>>;
  /** Values a call's omitted arguments take in this recipe, by tool (braindump creates drafts). */
  defaults?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Sessions start without a task and claim one; task arguments then default to the claimed task. */
  claimsTasks?: boolean;
  /** The recipe works on its own task only: without one (no --task, nothing claimed) it changes no task. */
  ownTaskOnly?: boolean;
  /** A --task session's first write takes the lease on its task, as a claim would (docs/sessions.md, Leases). */
  leasesTask?: boolean;
  /** Sessions must be launched on a task (--task N): without one the recipe could do nothing at all. */
  needsTask?: boolean;
  /** Sessions change one discipline: launched without --discipline they could change every one. */
  needsDiscipline?: boolean;
  /** Sessions plan across tasks: a --task given to them is almost surely a mistake (it is warned about). */
  acrossTasks?: boolean;
}

/**
 * task_execution: SPEC-070's list plus what its scenarios need: report a blocker (1), repair the own
 * task's stale context (2), stop the session (6), read what dependencies produced (9), check a
 * feature's learnings before adding one (10).
 */
const TASK_EXECUTION = [
  'get_task',
  'set_task_status',
  // Ralph's task prompt sets the task done (or blocked, with blocked_by) with update_task.
  'update_task',
  'add_task_comment',
  'append_learning',
  'append_progress',
  'add_feature_context_file',
  'read_learnings',
  'read_progress',
  'get_project_info',
  'report_blocker',
  'signal_abort',
  'get_dependency_details',
  'get_feature_learnings',
  'update_task_context',
  // Answers people gave to this task's questions (a session re-attempting it reads them).
  'get_answers',
  // Give the task back when it cannot be finished here (the next claim retries it), and read what
  // happened to it before (a re-attempt).
  'release_task',
  'task_history',
];
/** update_task on the own task does what Ralph's task prompt asks of it (a status), and nothing more. */
const OWN_TASK_UPDATE = { update_task: ['id', 'status', 'blocked_by'] };

export const RECIPES: readonly Recipe[] = [
  {
    name: 'braindump',
    purpose:
      'Turn unstructured input into the project skeleton: features, disciplines and tasks. Create, do not modify.',
    // + search_tasks: look for existing work before creating a duplicate (scenario 8).
    allow: [
      'create_feature',
      'create_discipline',
      'create_task',
      'list_templates',
      'create_task_from_template',
      'list_features',
      'list_disciplines',
      'list_tasks',
      'get_feature',
      'get_discipline',
      'get_project_info',
      'search_tasks',
    ],
    acrossTasks: true,
    // Ralph's braindump prompt: "tasks are created as drafts by default".
    defaults: { create_task: { status: 'draft' } },
  },
  {
    name: 'yap',
    purpose: 'Refine and create tasks within the existing features and disciplines.',
    // + add/remove_dependency: refining tasks includes their order, one dependency at a time.
    allow: [
      'list_tasks',
      'get_task',
      'create_task',
      'list_templates',
      'create_task_from_template',
      'update_task',
      'list_features',
      'list_disciplines',
      'set_task_status',
      'get_project_info',
      'search_tasks',
      'add_dependency',
      'remove_dependency',
      // What a plan's order got wrong, whoever wrote it (cycles, missing tasks): refining fixes it.
      'dependency_problems',
      // What holds tasks up (dependencies, questions, blockers): what to order or unblock next.
      'blocked_tasks',
    ],
  },
  {
    name: 'ramble',
    purpose: "Discuss and refine a feature's design, learnings and context files.",
    allow: [
      'list_features',
      'get_feature',
      'create_feature',
      'update_feature',
      'append_feature_learning',
      'add_feature_context_file',
      'list_tasks',
      'get_project_info',
      // Ralph's ramble prompt: a split or merged feature takes its tasks along.
      'move_task_to_feature',
    ],
    acrossTasks: true,
  },
  {
    name: 'discuss',
    purpose: "Refine a discipline's persona, conventions and skills.",
    // + create_discipline (Ralph's discuss prompt): a new discipline changes no existing one.
    allow: ['list_disciplines', 'get_discipline', 'create_discipline', 'update_discipline', 'get_project_info'],
    // SPEC-070: "only updates to targeted discipline"; without a target there is nothing it may update.
    needsDiscipline: true,
  },
  {
    name: 'task_execution',
    purpose: 'Execute one task: do the work, mark it done, record what you learned, note progress.',
    allow: TASK_EXECUTION,
    narrow: OWN_TASK_UPDATE,
    ownTaskOnly: true,
    leasesTask: true,
  },
  {
    name: 'opus_review',
    purpose: 'Review completed work on a feature: adjust priorities, spawn follow-up tasks, record learnings.',
    allow: [
      'list_tasks',
      'get_task',
      'set_task_status',
      'update_task',
      'create_task',
      'list_templates',
      'create_task_from_template',
      'add_task_comment',
      'list_features',
      'get_feature',
      'update_feature',
      'append_feature_learning',
      'append_learning',
      'append_progress',
      'read_learnings',
      'read_progress',
      // get_project_info made room for blocked_tasks (25 tools at most): the project's title and
      // description tell a reviewer little, and ralph://project still serves them.
      'get_project_progress',
      // Scenario 3 (scope creep) and review of what dependencies produced.
      'search_tasks',
      'skip_task',
      'move_task_to_feature',
      'get_dependency_details',
      // A reviewer finds missing or wrong orderings (a follow-up that needs the fix first); update_task
      // is narrowed here and cannot touch depends_on.
      'add_dependency',
      'remove_dependency',
      // Who did what to a task, and who holds it now.
      'task_history',
      // What is stuck and why: open questions to answer, blockers to clear, orderings to fix.
      'blocked_tasks',
    ],
    narrow: { update_task: ['id', 'priority', 'description'] },
  },
  {
    name: 'enrichment',
    purpose: 'Promote draft tasks: add pseudocode and acceptance criteria, split drafts that are too big.',
    // + scenario 4: a draft too big to do is split, and the original skipped rather than deleted.
    // + add/remove_dependency: enrichment is where a draft's prerequisites are worked out.
    allow: [
      'list_tasks',
      'get_task',
      'enrich_task',
      'update_task',
      'create_task',
      'list_templates',
      'create_task_from_template',
      'list_features',
      'get_feature',
      'list_disciplines',
      'get_project_info',
      'spawn_subtasks',
      'skip_task',
      'search_tasks',
      'add_dependency',
      'remove_dependency',
      'dependency_problems',
    ],
    // Status is not enrichment's to set (enriching makes a draft pending).
    narrow: {
      update_task: [
        'id',
        'title',
        'description',
        'priority',
        'acceptance_criteria',
        'depends_on',
        'tags',
        'context_files',
        'output_artifacts',
        'hints',
        'estimated_turns',
      ],
    },
  },
  {
    name: 'worker',
    purpose: 'One of a pool of parallel agents: claim the next ready task, execute it, report back, repeat.',
    // next_tasks: a worker has no list_tasks and should see what it would get before claiming; planners
    // get the same from list_tasks(ready: true, sort: 'priority') and do not pay for one more tool.
    // claim_task: a worker told which task to do (by Ralph's head, or a person) takes it with the same lease.
    allow: [...TASK_EXECUTION, 'claim_next_task', 'claim_task', 'next_tasks'],
    narrow: OWN_TASK_UPDATE,
    claimsTasks: true,
    ownTaskOnly: true,
    leasesTask: true,
  },
  {
    name: 'signals',
    purpose:
      "Finish or annotate one task through Ralph's eight signal verbs (what Ralph launches beside a task session).",
    // Exactly the verbs of the signal server Ralph launches (ralph-signals), which this recipe replaces.
    allow: SIGNAL_VERBS,
    ownTaskOnly: true,
    needsTask: true,
  },
];

export const RECIPE_NAMES: readonly string[] = RECIPES.map((r) => r.name);
export const recipeByName = (name: string): Recipe | undefined => RECIPES.find((r) => r.name === name);
