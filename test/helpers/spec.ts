/**
 * SPEC-070's tables, written out again by hand (not imported from src/): the tests check the server
 * against the spec, not against itself.
 */
export const ALL_TOOLS = [
  'list_tasks', 'get_task', 'create_task', 'update_task', 'delete_task', 'set_task_status', 'enrich_task',
  'add_task_comment', 'update_task_comment', 'delete_task_comment',
  'list_features', 'get_feature', 'create_feature', 'update_feature', 'delete_feature', 'append_feature_learning', 'add_feature_context_file',
  'list_disciplines', 'get_discipline', 'create_discipline', 'update_discipline', 'delete_discipline',
  'get_project_info', 'get_project_progress',
  'append_learning', 'read_learnings', 'append_progress', 'read_progress',
] as const;

export const RECIPE_TOOLS: Record<string, readonly string[]> = {
  braindump: ['create_feature', 'create_discipline', 'create_task', 'list_features', 'list_disciplines', 'list_tasks', 'get_feature', 'get_discipline', 'get_project_info'],
  yap: ['list_tasks', 'get_task', 'create_task', 'update_task', 'list_features', 'list_disciplines', 'set_task_status', 'get_project_info'],
  ramble: ['list_features', 'get_feature', 'create_feature', 'update_feature', 'append_feature_learning', 'add_feature_context_file', 'list_tasks', 'get_project_info'],
  discuss: ['list_disciplines', 'get_discipline', 'update_discipline', 'get_project_info'],
  task_execution: ['get_task', 'set_task_status', 'add_task_comment', 'append_learning', 'append_progress', 'add_feature_context_file', 'read_learnings', 'read_progress', 'get_project_info'],
  opus_review: [
    'list_tasks', 'get_task', 'set_task_status', 'update_task', 'create_task', 'add_task_comment', 'list_features', 'get_feature',
    'update_feature', 'append_feature_learning', 'append_learning', 'append_progress', 'read_learnings', 'read_progress',
    'get_project_info', 'get_project_progress',
  ],
  enrichment: ['list_tasks', 'get_task', 'enrich_task', 'update_task', 'create_task', 'list_features', 'get_feature', 'list_disciplines', 'get_project_info'],
};

export const RECIPES = Object.keys(RECIPE_TOOLS);

/** In registry (spec table) order: how tools/list orders them. */
export const inSpecOrder = (names: Iterable<string>): string[] => {
  const set = new Set(names);
  return ALL_TOOLS.filter((t) => set.has(t));
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
  add_task_comment: { task_id: 5, author: 'backend', body: 'hello' },
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
};
