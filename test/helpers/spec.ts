/**
 * SPEC-070's tables plus the workflow tools added since, written out again by hand (not imported from
 * src/): the tests check the server against the spec, not against itself.
 */

/** `words('a b')` is `['a', 'b']`, typed as that tuple of literals: long lists of names on few lines. */
type Words<S extends string> = S extends `${infer W} ${infer Rest}` ? [W, ...Words<Rest>] : [S];
const words = <S extends string>(s: S): Words<S> => s.split(' ') as Words<S>;

// SPEC-070's six tables (28 tools).
const SPEC_TASKS = words('list_tasks get_task create_task update_task delete_task set_task_status enrich_task');
const SPEC_COMMENTS = words('add_task_comment update_task_comment delete_task_comment');
const SPEC_FEATURES = [
  ...words('list_features get_feature create_feature update_feature delete_feature'),
  ...words('append_feature_learning add_feature_context_file'),
] as const;
const SPEC_DISCIPLINES = words('list_disciplines get_discipline create_discipline update_discipline delete_discipline');
const SPEC_PROJECT = words('get_project_info get_project_progress');
const SPEC_STATE_FILES = words('append_learning read_learnings append_progress read_progress');

/** Ralph's eight signal verbs, exactly as its own signal server names them. */
export const SIGNAL_VERBS = ['done', 'partial', 'stuck', 'ask', 'flag', 'learned', 'suggest', 'blocked'] as const;

/** Every tool, in registry order; the workflow issues' tools follow the spec table they belong with. */
export const ALL_TOOLS = [
  ...SPEC_TASKS,
  ...words('search_tasks claim_next_task claim_task report_blocker skip_task spawn_subtasks'),
  ...words('move_task_to_feature update_task_context get_dependency_details next_tasks'),
  ...words('add_dependency remove_dependency dependency_problems blocked_tasks release_task task_history'),
  // Ralph's task templates (normalized schema only)
  ...words('list_templates create_task_from_template'),
  ...SPEC_COMMENTS,
  ...SPEC_FEATURES,
  'get_feature_learnings',
  ...SPEC_DISCIPLINES,
  ...SPEC_PROJECT,
  ...SPEC_STATE_FILES,
  'signal_abort',
  // Ralph's signal verbs (the server Ralph launches beside task sessions), then reading answers.
  ...SIGNAL_VERBS,
  'get_answers',
] as const;

/** The 28 tools of SPEC-070's six tables. */
export const SPEC_070_TOOLS = [
  ...SPEC_TASKS,
  ...SPEC_COMMENTS,
  ...SPEC_FEATURES,
  ...SPEC_DISCIPLINES,
  ...SPEC_PROJECT,
  ...SPEC_STATE_FILES,
];

const TASK_EXECUTION = [
  ...words('get_task set_task_status update_task add_task_comment append_learning append_progress'),
  ...words('add_feature_context_file read_learnings read_progress get_project_info report_blocker signal_abort'),
  ...words('get_dependency_details get_feature_learnings update_task_context get_answers release_task task_history'),
];

export const RECIPE_TOOLS: Record<string, readonly string[]> = {
  braindump: [
    ...words('create_feature create_discipline create_task list_templates create_task_from_template'),
    ...words('list_features list_disciplines list_tasks get_feature get_discipline get_project_info search_tasks'),
  ],
  yap: [
    ...words('list_tasks get_task create_task list_templates create_task_from_template update_task'),
    ...words('list_features list_disciplines set_task_status get_project_info search_tasks'),
    ...words('add_dependency remove_dependency dependency_problems blocked_tasks'),
  ],
  ramble: [
    ...words('list_features get_feature create_feature update_feature append_feature_learning'),
    ...words('add_feature_context_file list_tasks get_project_info move_task_to_feature'),
  ],
  discuss: ['list_disciplines', 'get_discipline', 'create_discipline', 'update_discipline', 'get_project_info'],
  task_execution: TASK_EXECUTION,
  opus_review: [
    ...words('list_tasks get_task set_task_status update_task create_task list_templates create_task_from_template'),
    ...words('add_task_comment list_features get_feature update_feature append_feature_learning append_learning'),
    ...words('append_progress read_learnings read_progress get_project_progress search_tasks skip_task'),
    ...words('move_task_to_feature get_dependency_details add_dependency remove_dependency task_history blocked_tasks'),
  ],
  enrichment: [
    ...words('list_tasks get_task enrich_task update_task create_task list_templates create_task_from_template'),
    ...words('list_features get_feature list_disciplines get_project_info spawn_subtasks skip_task search_tasks'),
    ...words('add_dependency remove_dependency dependency_problems'),
  ],
  worker: [...TASK_EXECUTION, 'claim_next_task', 'claim_task', 'next_tasks'],
  signals: SIGNAL_VERBS,
};

export const RECIPES = Object.keys(RECIPE_TOOLS);

/** SPEC-070's discuss updates "only the targeted discipline": it is launched with one, or refused. */
export const NEEDS_DISCIPLINE: readonly string[] = ['discuss'];

/** The flags that launch `recipe` as Ralph would (every project the tests use has a backend discipline). */
export const recipeFlags = (recipe: string, discipline = 'backend'): string[] => [
  '--recipe',
  recipe,
  ...(NEEDS_DISCIPLINE.includes(recipe) ? ['--discipline', discipline] : []),
];

/** Tools only Ralph's normalized schema has (task templates): no session on a legacy database lists them. */
export const NORMALIZED_ONLY: readonly string[] = ['list_templates', 'create_task_from_template'];

/**
 * In registry (spec table) order: how tools/list orders them. Given a generation, only the tools a
 * session on it can have (legacy: without NORMALIZED_ONLY).
 */
export const inSpecOrder = (names: Iterable<string>, generation?: 'legacy' | 'normalized'): string[] => {
  const set = new Set(names);
  return ALL_TOOLS.filter((t) => set.has(t) && !(generation === 'legacy' && NORMALIZED_ONLY.includes(t)));
};

/**
 * Valid arguments for every tool on the sample project: a call with these would succeed (and, for
 * writing tools, write) if the tool were visible. Used to prove hidden tools write nothing.
 */
export const VALID_ARGS: Record<(typeof ALL_TOOLS)[number], Record<string, unknown>> = {
  list_tasks: {},
  get_task: { id: 1 },
  create_task: { feature: 'recipes', discipline: 'backend', title: 'Hidden task' },
  update_task: { id: 5, title: 'Renamed' },
  delete_task: { id: 8 },
  set_task_status: { id: 5, status: 'done' },
  enrich_task: { id: 6, pseudocode: 'do it' },
  add_task_comment: { task_id: 5, body: 'hello' },
  update_task_comment: { task_id: 1, comment_id: 1, body: 'edited' },
  delete_task_comment: { task_id: 1, comment_id: 1 },
  list_features: {},
  get_feature: { name: 'recipes' },
  create_feature: { name: 'hidden', display_name: 'Hidden' },
  update_feature: { name: 'search', description: 'changed' },
  delete_feature: { name: 'search' },
  append_feature_learning: { feature_name: 'search', text: 'a hidden lesson about indexes' },
  add_feature_context_file: { feature_name: 'search', file_path: 'src/search.ts' },
  list_disciplines: {},
  get_discipline: { name: 'backend' },
  create_discipline: { name: 'hidden', display_name: 'Hidden', icon: 'Code', color: '#000000' },
  update_discipline: { name: 'backend', conventions: 'changed' },
  delete_discipline: { name: 'documentation' },
  get_project_info: {},
  get_project_progress: {},
  append_learning: { text: 'hidden learning' },
  read_learnings: {},
  append_progress: { text: 'hidden progress' },
  read_progress: {},
  search_tasks: { query: 'recipe' },
  claim_next_task: {},
  claim_task: { id: 5 },
  next_tasks: {},
  report_blocker: { reason: 'blocked' }, // needs a session task: refused as no-task where visible without one
  skip_task: { id: 4, reason: 'not needed' },
  spawn_subtasks: { parent_id: 6, tasks: [{ title: 'part one' }] },
  move_task_to_feature: { id: 5, feature: 'auth' },
  update_task_context: { id: 5, hints: 'new hint' },
  get_dependency_details: { id: 4 },
  add_dependency: { task_id: 5, depends_on: 1 },
  remove_dependency: { task_id: 4, depends_on: 3 },
  dependency_problems: {},
  blocked_tasks: {},
  get_feature_learnings: { feature_name: 'recipes' },
  signal_abort: { reason: 'rate limited' },
  // The verbs act on the session's task: refused as no-task where visible without one.
  done: { summary: 'all finished' },
  partial: { summary: 'half', remaining: 'the other half' },
  stuck: { reason: 'no network' },
  ask: { question: 'which one?', blocking: false },
  flag: { what: 'flaky test', severity: 'warning', category: 'bug' },
  learned: { text: 'a hidden lesson', kind: 'discovery' },
  suggest: { what: 'split it', kind: 'split', why: 'too big' },
  blocked: { on: 'credentials', kind: 'external' },
  get_answers: { task_id: 3 },
  release_task: { reason: 'cannot finish here' }, // needs a session task: refused as no-task where visible without one
  task_history: { task_id: 1 },
  // Normalized only; the sample has no template: these succeed once one is added (templates.test.ts).
  list_templates: {},
  create_task_from_template: { template_id: 1, feature: 'recipes' },
};

/**
 * Whether a text names a tool. Names with an underscore are unambiguous words; Ralph's verbs (done, ask,
 * …) are also plain English and enum values, so for them only the forms that name a tool count: an
 * instructions line "- done:", `done` in backticks, or "the done tool".
 */
export function namesTool(text: string, tool: string): boolean {
  if (tool.includes('_')) return new RegExp(`\\b${tool}\\b`).test(text);
  return new RegExp(`(^|\\n)- ${tool}:|\`${tool}\`|\\bthe ${tool} tool\\b`).test(text);
}
