import type { Db } from '../db/database.js';
import type { DependencyEdge } from '../domain/dependencyProblems.js';
import type { SignalRow } from '../domain/signals.js';
import type {
  Claim,
  Comment,
  KnowledgeEntry,
  KnowledgeInsert,
  Template,
  HistoryRow,
  TitleLookup,
  Discipline,
  DisciplineRow,
  Feature,
  FeatureRow,
  Generation,
  ProgressGroup,
  ProjectInfo,
  ResourceRow,
  SearchHit,
  Task,
  TaskHead,
  TaskRow,
  TitleMatch,
  Blocker,
  BlockedTask,
  LeadTime,
  Question,
} from './records.js';
import type { BlockedGroup } from './blocked.js';
import type { HolderFilter, TaskListAfter, TaskSort } from './taskList.js';

/**
 * THE storage boundary: every read and write of Ralph's tables goes through one of these, in domain records,
 * implemented by legacy/ and normalized/. Callers validate first and pass canonical values; a store method
 * writes what it is given, keeping its generation's rules, and every write runs inside `write()`.
 */
export interface RalphStore {
  readonly generation: Generation;
  /** The connection (transactions, closing, fault handling). SQL on Ralph's tables stays in the store. */
  readonly db: Db;
  /** How messages name a feature here: "feature", or "feature (subsystem)" where Ralph says subsystem. */
  readonly featureNoun: string;
  /** Runs fn in one BEGIN IMMEDIATE transaction; any throw rolls everything back. */
  write<T>(fn: () => T): T;
  /** Runs fn's reads on one snapshot (one read transaction); fn must not write. */
  read<T>(fn: () => T): T;
  close(): void;
  /** Creates our tables on first write; refuses ones from a newer ralph-mcp. */
  ensureOwnTables(): void;
  /** Our tables' version, or undefined before the first write. */
  ownSchemaVersion(): string | undefined;

  readonly tasks: TaskStore;
  readonly search: SearchStore;
  readonly comments: CommentStore;
  readonly signals: SignalStore;
  readonly features: FeatureStore;
  readonly templates: TemplateStore;
  readonly names: NameStore;
  readonly disciplines: DisciplineStore;
  readonly project: ProjectStore;
  readonly audit: AuditStore;
  readonly claims: ClaimStore;
  readonly watch: WatchStore;
}

/** Who writes: recorded with comments and signals (a normalized signal needs its agent_sessions row). */
export interface Writer {
  sessionId: string;
  recipe: string | null;
  discipline: string | null;
  /** The session's own task, if any. */
  taskId: number | null;
}

/** Optional filters of list_tasks, search_tasks and claims; names are canonical (checked to exist). */
export interface TaskQuery {
  status?: string | undefined;
  feature?: string | undefined;
  discipline?: string | undefined;
}

/**
 * list_tasks' query: every filter given must hold (AND). Names are canonical (checked to exist);
 * values come checked (statuses, priorities of domain/rules.ts). `ready`: the claim's own condition
 * (store/ready.ts) — true keeps exactly the tasks a claim could take, false the others.
 */
export interface TaskListQuery {
  statuses?: readonly string[] | undefined;
  feature?: string | undefined;
  discipline?: string | undefined;
  priorities?: readonly string[] | undefined;
  tag?: string | undefined;
  ready?: boolean | undefined;
  /** In progress under a claim of this session, of any session, or not held at all (taskList.ts holderSql). */
  holder?: HolderFilter | undefined;
  /** Changed since (taskList.ts changedSince): the day and the UTC time 'YYYY-MM-DD HH:MM:SS'. */
  updatedSince?: { day: string; time: string } | undefined;
  sort?: TaskSort | undefined;
}

/** A listed row and the day it sorts by under `updated` (taskList.ts changedDay; '' when none). */
export type ListedTask = TaskRow & { changed: string };

export interface TaskInsert {
  feature: string;
  discipline: string;
  title: string;
  description: string | null;
  status: 'draft' | 'pending';
  priority: string | null;
  tags: string[];
  depends_on: number[];
  acceptance_criteria: string[];
  context_files: string[];
  output_artifacts: string[];
  hints: string | null;
  estimated_turns: number | null;
}

/** update_task: only the fields given change; lists are replaced whole. */
export type TaskChanges = Partial<
  Pick<
    TaskInsert,
    | 'title'
    | 'description'
    | 'priority'
    | 'acceptance_criteria'
    | 'depends_on'
    | 'tags'
    | 'context_files'
    | 'output_artifacts'
    | 'hints'
    | 'estimated_turns'
  >
>;

/** What get_task shows of a task beside its heads and claim, read together (one statement where the generation can). */
export interface TaskView {
  task: Task;
  /** The newest `comments` comments (of those with id < before, when given), oldest first. */
  comments: Comment[];
  /** The tasks that depend on this one, by id (the first `dependents`). */
  dependents: number[];
  /** Its questions (ask signals), oldest first. */
  questions: Question[];
  /** Heads of its dependencies read with it, where the generation could (any other: taskHead). */
  heads?: ReadonlyMap<number, Pick<TaskHead, 'title' | 'status'>>;
}

export interface TaskStore extends BlockedReads {
  getTask(id: number): Task | undefined;
  /** The task with its newest comments, dependents and questions (see TaskView); undefined: no such task. */
  taskView(id: number, comments: number, before: number | undefined, dependents: number): TaskView | undefined;
  taskHead(id: number): TaskHead | undefined;
  taskExists(id: number): boolean;
  /** For a not_found message: the id range and count of tasks. */
  taskIdRange(): { lo: number | null; hi: number | null; n: number };
  /** A page in the query's sort (default id): the rows after `after` (null: from the first), at most limit. */
  listTasks(query: TaskListQuery, after: TaskListAfter | null, limit: number): ListedTask[];
  /** How many tasks match; with `max`, counting stops past it (a count of max + 1 means "more than max"). */
  countTasks(query: TaskListQuery, max?: number): number;
  /** The rows list_tasks gives for these tasks, in the order given; a task that is not there is left out. */
  listedTasks(ids: readonly number[]): ListedTask[];
  /** The ids a task depends on (unreadable stored items skipped). */
  dependenciesOf(id: number): number[];
  /** The tasks that depend on this one, by id (the first `limit`, when given). */
  dependentsOf(id: number, limit?: number): number[];
  /**
   * The task's dependencies that are not done (status 'missing' for an id no task has), in list order, at most `limit`.
   */
  unfinishedDependencies(id: number, limit: number): { id: number; status: string }[];
  /** What the task's rows say blocks it (whatever its status now). */
  blocker(id: number): Blocker;
  /** Inserts a task (provenance agent, created today); returns the id agents see. */
  createTask(t: TaskInsert): number;
  updateTask(id: number, changes: TaskChanges): void;
  /** done stamps `completed` (today); any other status clears it. */
  setTaskStatus(id: number, status: string): void;
  /** Draft → pending with pseudocode; lists not given stay exactly as stored. */
  enrichTask(
    id: number,
    pseudocode: string,
    acceptance: string[] | undefined,
    contextFiles: string[] | undefined,
  ): void;
  /** Deletes the task and its comments; returns how many comments went with it. */
  deleteTask(id: number): number;
  moveTask(id: number, feature: string): void;
  /**
   * Read-modify-write of stored lists, exactly as stored (a legacy JSON column may hold items of other
   * shapes: they are kept). Reading a list that cannot be rewritten safely throws `conflict`.
   */
  taskContextFileItems(id: number): unknown[];
  writeTaskContextFiles(id: number, items: unknown[]): void;
  dependencyItems(id: number): unknown[];
  writeDependencyItems(id: number, items: unknown[]): void;
  /** Every stored dependency (ids as dependency reads take them), with each end's status (null: no such task). */
  dependencyEdges(): DependencyEdge[];
  /**
   * Removes the task's dependencies on `deps` (every stored item naming one); its other items and its dates
   * stay exactly as they were (a repair, not an edit). Returns how many items or rows went.
   */
  removeDependencies(taskId: number, deps: readonly number[]): number;
  /** Sets the task blocked and records why (and, with an upstream task, on which); returns that record as a comment. */
  markBlocked(id: number, reason: string, upstreamId: number | null, by: Writer): Comment;
  /**
   * The highest-priority pending task whose dependencies are all done, and how many such tasks there are (up to
   * READY_COUNT_MAX + 1).
   */
  pickReadyTask(query: TaskQuery): { id: number; ready: number } | undefined;
  /**
   * The first `limit` tasks a claim would take, in the claim's order (the same statement as pickReadyTask's pick);
   * reads only.
   */
  readyTasks(query: TaskQuery, limit: number): number[];
  progressGroups(): ProgressGroup[];
  completeTaskIds(prefix: string, limit: number): number[];
}

/** The blocked view and the lead time (store/blocked.ts; each generation's blocked.ts), part of TaskStore. */
export interface BlockedReads {
  /**
   * A page of the blocked view (store/blocked.ts): the group's tasks with id > afterId, by id, at most
   * limit, each with what holds it; a feature (canonical) narrows it.
   */
  blockedTasks(group: BlockedGroup, feature: string | undefined, afterId: number, limit: number): BlockedTask[];
  /** How many tasks the group holds; counting stops past max (max + 1 means "more than max"). */
  countBlocked(group: BlockedGroup, feature: string | undefined, max: number): number;
  /** The median lead time over the newest BLOCKED_BOUNDS.leadTasks done tasks (by id). */
  leadTime(): LeadTime;
}

/** Finding tasks by their words: our FTS5 index over titles and descriptions, and title keys. */
export interface SearchStore {
  /**
   * Ranked full-text search (FTS5) over the index as far as it has caught up: tasks still queued for
   * re-indexing are left out (catchUp first). Title matches first; bounded (SEARCH_BOUNDS):
   * `invalid_argument` past `budgetMs` (default there).
   */
  searchTasks(ftsQuery: string, query: TaskQuery, limit: number, budgetMs?: number): SearchHit[];
  /**
   * Builds (first time) the search index and catches up one chunk, so the first search need not build
   * it inside its request while a shared server answers nothing else.
   */
  prepareSearch(): void;
  /**
   * Re-indexes at most `maxRows` of the tasks changed since the index last caught up (newest first, one
   * transaction) and returns how many still wait; 0 only counts them.
   */
  catchUp(maxRows: number): number;
  /** What a create compares its title with (exact and near duplicates), read once per create. */
  titleLookup(): TitleLookup;
  /** id, title, status and feature of these tasks, in this order (ids no task has are left out). */
  titleHeads(ids: readonly number[]): TitleMatch[];
}

export interface CommentInsert {
  task_id: number;
  author: string;
  discipline: string | null;
  agent_task_id: number | null;
  priority: string | null;
  body: string;
}

export interface CommentStore {
  /** Oldest first. */
  comments(taskId: number): Comment[];
  /** The last n (of those with id < before, when given), oldest first. */
  recentComments(taskId: number, n: number, before?: number): Comment[];
  /** How many comments the task has (get_task pages them). */
  commentCount(taskId: number): number;
  getComment(taskId: number, commentId: number): Comment | undefined;
  commentIds(taskId: number, limit: number): number[];
  /** Stamped now (RFC 3339 UTC). */
  addComment(c: CommentInsert, by: Writer): Comment;
  updateComment(taskId: number, commentId: number, body: string): Comment;
  deleteComment(taskId: number, commentId: number): void;
}

export interface FeatureInsert {
  name: string;
  display_name: string;
  acronym: string;
  description: string | null;
  knowledge_paths: string[];
  context_files: string[];
  architecture: string | null;
  boundaries: string | null;
  dependencies: string[];
}

export type FeatureChanges = Partial<Omit<FeatureInsert, 'name'>>;

export type Named = 'features' | 'disciplines';

export interface FeatureStore {
  listFeatures(): FeatureRow[];
  getFeature(name: string): Feature | undefined;
  /** The stored spelling of a feature name (normalized names compare case-insensitively), or undefined. */
  featureName(name: string): string | undefined;
  featureNames(limit: number): string[];
  createFeature(f: FeatureInsert): void;
  updateFeature(name: string, changes: FeatureChanges): void;
  deleteFeature(name: string): void;
  featureTaskCount(name: string): number;
  /** Features that name this one among their dependencies. */
  featureDependents(name: string): string[];
  featureDependencies(name: string): string[];
  featureContextFileItems(name: string): unknown[];
  writeFeatureContextFiles(name: string, items: unknown[]): void;
  /** The stored learnings as items for mergeLearning (identity-tagged where a generation keeps rows). */
  learningItems(name: string): unknown[];
  writeLearningItems(name: string, items: unknown[], by: Writer): void;
  /** Every knowledge entry of the feature, all categories (learnings too), newest first as Ralph reads them. */
  knowledge(name: string): KnowledgeEntry[];
  /** Adds one entry of a category other than learning; returns it as stored. */
  addKnowledge(name: string, entry: KnowledgeInsert, by: Writer): KnowledgeEntry;
}

/** Task templates: Ralph's head keeps them (`task_templates`); the legacy generation has none. */
export interface TemplateStore {
  /** Whether this generation has templates at all. */
  readonly available: boolean;
  /** Every template, active ones first, by id. */
  listTemplates(): Template[];
  getTemplate(id: number): Template | undefined;
  /**
   * A task pulled from the template, as Ralph pulls one: it shares the template's details (copied on
   * its first change), names the template, starts pending; returns its id.
   */
  createFromTemplate(templateId: number, feature: string): number;
}

/** The names features and disciplines share: acronyms, and names to complete. */
export interface NameStore {
  /** The feature or discipline holding this acronym. */
  acronymOwner(kind: Named, acronym: string): string | undefined;
  acronyms(kind: Named): string[];
  completeNames(kind: Named, prefix: string, limit: number): string[];
}

export interface DisciplineInsert {
  name: string;
  display_name: string;
  acronym: string;
  icon: string;
  color: string;
  system_prompt: string | null;
  skills: string[];
  conventions: string | null;
}

export type DisciplineChanges = Partial<
  Pick<DisciplineInsert, 'display_name' | 'icon' | 'color' | 'system_prompt' | 'skills' | 'conventions'>
> & {
  /** The discipline's own MCP servers, replaced whole ({name, command, args?, env?} items). */
  mcp_servers?: McpServerInsert[];
};

/** One of a discipline's own MCP servers, as Ralph stores it. */
export interface McpServerInsert {
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

export interface DisciplineStore {
  listDisciplines(): DisciplineRow[];
  getDiscipline(name: string): Discipline | undefined;
  disciplineName(name: string): string | undefined;
  disciplineNames(limit?: number): string[];
  createDiscipline(d: DisciplineInsert): void;
  updateDiscipline(name: string, changes: DisciplineChanges): void;
  deleteDiscipline(name: string): void;
  /** What still refers to a discipline: tasks (and, where a generation has them, templates). */
  disciplineUsage(name: string): { tasks: number; templates: number };
  /** The stored SPEC-070 overrides value (JSON text or null); undefined when the discipline does not exist. */
  toolOverrides(name: string): { name: string; raw: unknown } | undefined;
  allToolOverrides(): { name: string; raw: unknown }[];
  /** Overrides stored for a discipline that no longer exists (removed at the next start of a session). */
  orphanOverrides(): string[];
  /** Where overrides live on this database ("table.column"), or null while nowhere can hold one yet. */
  overridesLocation(): string | null;
  writeToolOverrides(name: string, json: string | null): void;
  /** The discipline's own MCP servers as stored ({name, command, args?, env?} items), or null when unreadable. */
  mcpServerItems(name: string): unknown[] | null;
}

export interface ProjectStore {
  projectInfo(): ProjectInfo;
  resourcePage(offset: number, limit: number): ResourceRow[];
  /** PRAGMA integrity_check messages ('ok' alone when sound). */
  integrityCheck(): string[];
  sqliteVersion(): string;
}

/** ralph-mcp's audit rows (ralph_mcp_audit): one implementation, shared by both generations. */
export interface AuditStore {
  /**
   * `about`: more tasks the row is about (the task a call gave back; each task a repair changed), beside the
   * writer's and the arguments'. Returns the row's id.
   */
  recordCall(
    by: Writer,
    tool: string,
    args: unknown,
    outcome: string,
    about?: number | readonly number[] | null,
  ): number;
  recordAbort(by: Writer, reason: string): number;
}

/** Claims with leases (own/claims.ts): who holds which task until when; a task's history. */
export interface ClaimStore {
  claimOf(taskId: number): Claim | undefined;
  claimsOf(taskIds: readonly number[]): Map<number, Claim>;
  sessionClaims(sessionId: string): Claim[];
  expiredClaims(now: string, limit: number): Claim[];
  putClaim(c: Claim): void;
  renewLease(c: Pick<Claim, 'task_id' | 'session_id' | 'claimed_at'>, until: string): number;
  dropClaim(taskId: number): void;
  taskHistory(taskId: number, after: number, limit: number): HistoryRow[];
}

/**
 * Ralph's signal verbs (domain/signals.ts). On the normalized generation a signal is Ralph's own
 * task_signals row (with its agent_sessions row); the legacy generation has no such table, so there it
 * is a row of ours (ralph_mcp_task_signals) plus a task comment that Ralph's UI of that generation shows.
 */
export interface SignalStore {
  /** One signal, exactly its verb's columns, with its session row (normalized): one transaction. */
  addSignal(taskId: number, row: SignalRow, by: Writer): { id: number; created: string };
  /** A task's questions (ask signals), oldest first, answered or not. */
  questions(taskId: number): Question[];
  /** One question (ask signal) by its id: a point read, whatever else its task holds. */
  question(signalId: number): Question | undefined;
  /** Records a person's answer to a question; undefined when no question has that id. */
  answerQuestion(signalId: number, answer: string): Question | undefined;
}

/**
 * What resource subscriptions compare (server/watch.ts): cheap values that change when a resource's
 * content would, whoever wrote it (this process, another session, Ralph, plain SQL).
 */
export interface WatchStore {
  /**
   * PRAGMA data_version of this connection: changes when another connection (another process, Ralph,
   * plain SQL) commits to the file; never for this connection's own commits (Db.onCommit sees those).
   */
  dataVersion(): number;
  /**
   * A short text that changes whenever ralph://tasks/{id} would (its rows, lists, comments); null when there is no such
   * task.
   */
  taskFingerprint(id: number): string | null;
}
