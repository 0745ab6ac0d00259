import type { Learning } from '../domain/learnings.js';

/**
 * The domain records that cross the storage boundary, the same on both of Ralph's schema generations.
 * Tools see only these (and the RalphStore interface); how a generation keeps them is its own business.
 * Agents keep SPEC-070's names: a normalized `subsystem` is a `feature` here.
 */

/** legacy: `features` + `tasks` with JSON-array columns (Ralph 936f316). normalized: Ralph's head. */
export type Generation = 'legacy' | 'normalized';
export const GENERATIONS: readonly Generation[] = ['legacy', 'normalized'];

export interface Task {
  id: number;
  feature: string;
  discipline: string;
  title: string;
  description: string | null;
  status: string;
  priority: string | null;
  tags: string[];
  depends_on: number[];
  blocked_by: string | null;
  created: string | null;
  updated: string | null;
  completed: string | null;
  acceptance_criteria: string[];
  context_files: string[];
  output_artifacts: string[];
  hints: string | null;
  estimated_turns: number | null;
  provenance: string | null;
  pseudocode: string | null;
  enriched_at: string | null;
  /** normalized only (legacy has no templates): the template this task was pulled from, or null. */
  template?: { id: number; title: string } | null;
  /** The lists stored longer than a read returns (json.ts LIST_READ_MAX): only their first items are here. */
  truncated_lists?: string[];
}

/** What a session plan and scope checks need of a task: cheap to read on both generations. */
export interface TaskHead {
  id: number;
  title: string;
  status: string;
  feature: string;
  discipline: string;
}

/** One row of list_tasks. */
export interface TaskRow {
  id: number;
  title: string;
  status: string;
  priority: string | null;
  feature: string;
  discipline: string;
  depends_on: number[];
  /** normalized only: the template the task was pulled from, or null. */
  template_id?: number | null;
  /** ['depends_on'] when more dependencies are stored than a read returns (json.ts LIST_READ_MAX). */
  truncated_lists?: string[];
}

export interface Comment {
  id: number;
  task_id: number;
  author: string;
  discipline: string | null;
  agent_task_id: number | null;
  priority: string | null;
  body: string;
  created: string | null;
}

export interface Feature {
  name: string;
  display_name: string;
  acronym: string;
  description: string | null;
  created: string | null;
  knowledge_paths: string[];
  context_files: string[];
  architecture: string | null;
  boundaries: string | null;
  learnings: Learning[];
  dependencies: string[];
}

/**
 * The categories of feature knowledge, in the order Ralph's prompt builder groups them (its
 * `subsystem_comments.category` CHECK list, sorted as its BTreeMap sorts them).
 */
export const KNOWLEDGE_CATEGORIES = [
  'architecture',
  'boundary',
  'convention',
  'dependency',
  'design-decision',
  'gotcha',
  'learning',
] as const;
export type KnowledgeCategory = (typeof KNOWLEDGE_CATEGORIES)[number];

/** One entry of a feature's knowledge, as Ralph's prompt builder reads it (normalized: a subsystem_comments row). */
export interface KnowledgeEntry {
  /** The row's id; null for a legacy learning (an item of features.learnings has none). */
  id: number | null;
  category: KnowledgeCategory;
  text: string;
  summary: string | null;
  reason: string | null;
  discipline: string | null;
  task_id: number | null;
  created: string | null;
  updated: string | null;
}

/** A new entry of a category other than `learning` (learnings are merged: FeatureStore.writeLearningItems). */
export interface KnowledgeInsert {
  category: Exclude<KnowledgeCategory, 'learning'>;
  text: string;
  summary: string | null;
  reason: string | null;
  discipline: string | null;
  task_id: number | null;
}

/** A task template (normalized only): the details a task pulled from it starts with. */
export interface Template {
  id: number;
  title: string;
  description: string | null;
  discipline: string;
  priority: string | null;
  hints: string | null;
  estimated_turns: number | null;
  pseudocode: string | null;
  active: boolean;
  /** How many tasks were pulled from it. */
  pulled: number;
}

export interface FeatureRow {
  name: string;
  display_name: string;
  acronym: string;
  description: string | null;
}

export interface Discipline {
  name: string;
  display_name: string;
  acronym: string;
  icon: string;
  color: string;
  description: string | null;
  system_prompt: string | null;
  skills: string[];
  conventions: string | null;
  mcp_servers: unknown[];
  stack_id: number | null;
  mcp_tool_overrides: { additional_disabled: string[] } | null;
}

export interface DisciplineRow {
  name: string;
  display_name: string;
  acronym: string;
  icon: string;
  color: string;
  description: string | null;
}

export interface ProjectInfo {
  title: string;
  description: string | null;
  created: string | null;
  schema_version: string;
}

/** One group of get_project_progress's single grouped pass. */
export interface ProgressGroup {
  status: string;
  feature: string;
  discipline: string;
  n: number;
}

export interface SearchHit {
  id: number;
  title: string;
  status: string;
  priority: string | null;
  feature: string;
  discipline: string;
  /** bm25: lower (more negative) is better. */
  score: number;
  snippet: string;
}

/** A task whose title a create compares with its own (possible duplicates). */
export interface TitleMatch {
  id: number;
  title: string;
  status: string;
  feature: string;
}

/** Why a task is blocked, as far as its rows say: what blocks it, and the upstream task when it is one. */
export interface Blocker {
  /** The recorded reason (legacy blocked_by, or the newest blocked signal), or null when none was recorded. */
  detail: string | null;
  /** The task it waits on (report_blocker's on_task_id, a blocked signal of kind upstream_task), or null. */
  upstream: number | null;
}

/** One task of the blocked view (store/blocked.ts): what holds it (fields only when they say something), bounded. */
export interface BlockedTask {
  id: number;
  title: string;
  status: string;
  priority: string | null;
  feature: string;
  discipline: string;
  /** The recorded blocker while it holds the task (status blocked, or a session that ended on `blocked`). */
  reason?: string;
  /** The task that blocker names. */
  upstream?: number;
  /** Unfinished dependencies, in list order ('missing': no task has that id); the first few. */
  waits_on?: { id: number; status: string }[];
  /** How many more than listed (counted up to BLOCKED_BOUNDS.countMax). */
  waits_on_more?: number;
  /** Open blocking questions (ask signals without an answer), oldest first; the first few. */
  questions?: { id: number; question: string }[];
  questions_more?: number;
}

/** The median lead time of done tasks in whole days, and how many tasks it rests on. */
export interface LeadTime {
  median_days: number | null;
  /** Done tasks it was computed from. */
  tasks: number;
  /** Done tasks read but left out: no readable created or completed day, or completed before created. */
  skipped: number;
}

/** A resources/list entry over tasks, features and disciplines, in that order. */
export interface ResourceRow {
  kind: 'tasks' | 'features' | 'disciplines';
  key: string;
  title: string;
}

/** A question an agent asked (an `ask` signal) and its answer once a person gave one. */
export interface Question {
  id: number;
  task_id: number;
  question: string;
  options: string[];
  preferred: string | null;
  blocking: boolean;
  answer: string | null;
  session_id: string;
  created: string | null;
}

/**
 * A claim with its lease (ralph_mcp_claims): which session holds which task, since when, until when.
 * Times are ISO 8601 UTC with milliseconds (fixed width, so they compare as text).
 */
export interface Claim {
  task_id: number;
  session_id: string;
  claimed_at: string;
  lease_until: string;
}

/** One row of a task's history (ralph_mcp_audit), oldest first. */
export interface HistoryRow {
  id: number;
  created: string;
  session_id: string;
  recipe: string | null;
  discipline: string | null;
  tool: string;
  arguments: string;
  outcome: string;
}

/** A task's title as exact and near duplicates compare it (titleKey). */
export interface TitleKey {
  id: number;
  key: string;
}

/**
 * What a create compares its title with, read once per create. Tasks in the change queue are compared
 * by their current titles (read here); the index and the title keys answer for every other task.
 */
export interface TitleLookup {
  /** Tasks titled exactly `key`, newest first, at most `limit`. */
  same(key: string, limit: number): number[];
  /**
   * The candidates for near duplicates: the newest `limit` indexed tasks whose title matches `fts`
   * (an FTS5 query of quoted words, title column only; none past TITLE_MATCH_BUDGET_MS; none queued
   * for re-indexing), and the newest queued tasks (own/search.ts PENDING_SCAN). Each with
   * its title key, for the caller to compare.
   */
  near(fts: string, limit: number): TitleKey[];
}
