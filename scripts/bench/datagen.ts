import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Bench projects: `ralph-mcp init --schema <generation> --no-disciplines`, then one bulk INSERT
 * transaction with realistic rows, written the way Ralph writes them (plain SQL): on the legacy
 * generation one `tasks` row per task with JSON lists in TEXT columns; on the normalized generation
 * (Ralph's head) `task_details` + `runtime_tasks` and one child row per list item, comments as `learned`
 * signals with their `agent_sessions` row, learnings as `subsystem_comments`. Deterministic (seeded): the
 * same seed gives the same logical project (tasks, texts, statuses, dependencies, comments, …) on either
 * generation, so the two compare, and runs compare.
 */

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
export const int = (r: Rand, n: number) => Math.floor(r() * n);
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)]!;

export const FEATURES = [
  ['auth', 'Authentication', 'AUTH', 'Sign-in with email links, sessions, password resets and OAuth providers'],
  ['billing', 'Billing', 'BILL', 'Subscriptions, invoices, payment webhooks and proration'],
  ['search', 'Search', 'SRCH', 'Full-text search over documents, filters and saved queries'],
  ['notifications', 'Notifications', 'NOTF', 'Email, push and in-app notifications with user preferences'],
  ['reporting', 'Reporting', 'REPT', 'Dashboards, CSV exports and scheduled reports'],
  ['onboarding', 'Onboarding', 'ONBD', 'First-run wizard, sample data and product tours'],
  ['sync', 'Offline sync', 'SYNC', 'Offline-first storage with conflict resolution and background sync'],
  ['admin', 'Admin console', 'ADMN', 'User management, audit log viewer and feature flags'],
] as const;

export const DISCIPLINES = [
  [
    'frontend',
    'Frontend',
    'FRNT',
    'Code',
    '#068d87',
    'You build the React UI with accessible components.',
    '["react","typescript","css"]',
  ],
  [
    'backend',
    'Backend',
    'BACK',
    'Server',
    '#ea7805',
    'You own the API, the services and their contracts.',
    '["node","postgres","http"]',
  ],
  [
    'database',
    'Database',
    'DATA',
    'Database',
    '#2563eb',
    'You design schemas, migrations and queries.',
    '["sql","sqlite","migrations"]',
  ],
  [
    'quality',
    'Quality',
    'QUAL',
    'FlaskConical',
    '#7a10ff',
    'You write unit, integration and end-to-end tests.',
    '["vitest","playwright"]',
  ],
  [
    'devops',
    'DevOps',
    'DVOP',
    'Cloud',
    '#16a34a',
    'You own CI, deployment and observability.',
    '["docker","github-actions","terraform"]',
  ],
  [
    'documentation',
    'Documentation',
    'DOCS',
    'BookOpen',
    '#3b82f6',
    'You write user and developer documentation.',
    '["markdown"]',
  ],
] as const;

const VERBS = [
  'Add',
  'Implement',
  'Refactor',
  'Fix',
  'Document',
  'Test',
  'Migrate',
  'Optimise',
  'Validate',
  'Cache',
  'Expose',
  'Remove',
  'Wire up',
  'Harden',
  'Instrument',
  'Split',
  'Rename',
  'Paginate',
  'Debounce',
  'Localise',
];
const ADJ = [
  'stale',
  'nested',
  'optional',
  'encrypted',
  'paginated',
  'cached',
  'signed',
  'retryable',
  'concurrent',
  'partial',
  'expired',
  'default',
  'legacy',
  'async',
  'batched',
  'scheduled',
  'archived',
  'shared',
  'private',
  'public',
];
const NOUNS = [
  'session',
  'token',
  'invoice',
  'webhook',
  'subscription',
  'migration',
  'index',
  'query',
  'endpoint',
  'handler',
  'component',
  'form',
  'modal',
  'table',
  'export',
  'report',
  'dashboard',
  'filter',
  'cursor',
  'queue',
  'worker',
  'job',
  'schedule',
  'template',
  'preference',
  'notification',
  'email',
  'banner',
  'wizard',
  'tour',
  'snapshot',
  'conflict',
  'replica',
  'cache',
  'flag',
  'role',
  'permission',
  'audit',
  'log',
  'metric',
  'trace',
  'alert',
  'config',
  'schema',
  'column',
  'constraint',
  'trigger',
  'payload',
  'response',
  'request',
  'retry',
  'timeout',
  'upload',
  'attachment',
  'avatar',
  'locale',
  'currency',
];
const FUNCTION_WORDS = [
  'the',
  'a',
  'and',
  'to',
  'of',
  'in',
  'it',
  'when',
  'with',
  'for',
  'on',
  'that',
  'we',
  'so',
  'should',
  'from',
  'before',
  'after',
  'must',
  'only',
  'each',
  'every',
  'no',
  'still',
  'already',
  'once',
  'again',
  'never',
  'always',
  'first',
  'last',
];
const CONTENT_WORDS = [
  ...NOUNS,
  ...ADJ,
  'user',
  'server',
  'client',
  'database',
  'page',
  'list',
  'field',
  'value',
  'error',
  'message',
  'state',
  'store',
  'route',
  'hook',
  'test',
  'build',
  'release',
  'returns',
  'stores',
  'renders',
  'validates',
  'retries',
  'logs',
  'updates',
  'deletes',
  'creates',
  'reads',
  'writes',
  'sends',
  'checks',
  'handles',
  'keeps',
  'quickly',
  'safely',
  'correctly',
  'empty',
  'large',
  'small',
  'slow',
  'broken',
  'missing',
  'duplicate',
  'flaky',
  'mobile',
  'desktop',
  'tablet',
  'offline',
  'api',
  'ui',
  'sql',
  'json',
  'csv',
  'http',
  'oauth',
  'stripe',
  'postgres',
  'sqlite',
  'redis',
  'react',
  'node',
  'docker',
  'ci',
  'utc',
  'timezone',
  'graphql',
];
const SUFFIXES = [
  'Service',
  'Store',
  'Handler',
  'Controller',
  'Repository',
  'Client',
  'Schema',
  'View',
  'Hook',
  'Queue',
  'Worker',
  'Config',
];
/** Code identifiers (invoiceService, tokenStore, …): most of a real project's distinct words. */
const IDENTIFIERS = NOUNS.flatMap((n) => SUFFIXES.map((suf) => `${n}${suf}`));

/**
 * The vocabulary in frequency order (function words first, then content words and identifiers in a
 * fixed shuffled order), sampled with a Zipf distribution (rank k has weight 1/k), as natural text is.
 */
const VOCAB: string[] = (() => {
  const rest = [...CONTENT_WORDS, ...IDENTIFIERS];
  const r = rng(12345);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  return [...FUNCTION_WORDS, ...rest];
})();
const CUMULATIVE: number[] = (() => {
  let acc = 0;
  return VOCAB.map((_, k) => (acc += 1 / (k + 1)));
})();
function word(r: Rand): string {
  const x = r() * CUMULATIVE[CUMULATIVE.length - 1]!;
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo]!;
}

export function sentence(r: Rand, min = 8, max = 16): string {
  const n = min + int(r, max - min + 1);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(word(r));
  const s = words.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}
export const paragraph = (r: Rand, min: number, max: number) =>
  Array.from({ length: min + int(r, max - min + 1) }, () => sentence(r)).join(' ');
export const title = (r: Rand) =>
  `${pick(r, VERBS)} ${pick(r, ADJ)} ${pick(r, NOUNS)} ${r() < 0.5 ? pick(r, NOUNS) : `in ${pick(r, IDENTIFIERS)}`}`;
/** Two words a search would plausibly use: a topic noun and an adjective, noun or code identifier. */
export const searchQuery = (r: Rand) =>
  `${pick(r, NOUNS)} ${pick(r, r() < 0.4 ? IDENTIFIERS : r() < 0.5 ? ADJ : NOUNS)}`;

/**
 * A small vocabulary of area words (issue 30): a real plan says "test", "api" or "fix" in a large share of
 * its tasks. Each of these words is in about a third of the generated tasks: in a quarter of the titles
 * (as an area prefix, "Parser cache: …") and in a tenth of the other tasks' descriptions.
 */
export const COMMON_WORDS = ['cache', 'parser', 'worker', 'bookmark', 'unicode'] as const;
const COMMON_IN_TITLE = 0.25;
const COMMON_IN_DESCRIPTION = 0.1;
/**
 * A task's area words, from a stream of its own (seeded by the project's seed and the task's id): the
 * project's main stream, and with it every other generated value, is the one it was before these words.
 */
function commonWords(seed: number, id: number): { title: string[]; description: string[] } {
  const r = rng(seed * 1_000_003 + id);
  const title: string[] = [];
  const description: string[] = [];
  for (const w of COMMON_WORDS) {
    if (r() < COMMON_IN_TITLE) title.push(w);
    else if (r() < COMMON_IN_DESCRIPTION) description.push(w);
  }
  return { title, description };
}
const capitalised = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;
/**
 * The common-word queries of the bench's search family: one word, two words (in about a tenth of the
 * tasks together), and a prefix (a word's first four letters, which no task has as a whole word).
 */
export const commonSearchQuery = (r: Rand): string => {
  const x = r();
  if (x < 0.4) return pick(r, COMMON_WORDS);
  if (x < 0.8) {
    const a = pick(r, COMMON_WORDS);
    const b = pick(
      r,
      COMMON_WORDS.filter((w) => w !== a),
    );
    return `${a} ${b}`;
  }
  return pick(r, COMMON_WORDS).slice(0, 4);
};

const STATUS_WEIGHTS: [string, number][] = [
  ['done', 0.45],
  ['pending', 0.3],
  ['draft', 0.08],
  ['in_progress', 0.05],
  ['blocked', 0.07],
  ['skipped', 0.05],
];
const PRIORITY_POOL = ['low', 'medium', 'medium', 'high', 'high', 'critical', null] as const;

function weighted(r: Rand): string {
  let x = r();
  for (const [s, w] of STATUS_WEIGHTS) {
    x -= w;
    if (x < 0) return s;
  }
  return 'pending';
}

export type Generation = 'legacy' | 'normalized';
export const GENERATIONS: readonly Generation[] = ['legacy', 'normalized'];

// ---- the logical project (generation-independent) -----------------------------------------------

export interface DisciplineRec {
  name: string;
  display_name: string;
  acronym: string;
  icon: string;
  color: string;
  system_prompt: string;
  skills: string[];
  conventions: string;
  description: string;
}
export interface LearningRec {
  text: string;
  source: 'auto' | 'agent' | 'human' | 'opus_reviewed';
  task_id: number;
  created: string;
  hit_count: number;
  reviewed: boolean;
  review_count: number;
}
export interface FeatureRec {
  name: string;
  display_name: string;
  acronym: string;
  description: string;
  created: string;
  context_files: string[];
  architecture: string;
  boundaries: string;
  learnings: LearningRec[];
}
export interface CommentRec {
  author: string;
  discipline: string;
  agent_task_id: number;
  priority: string | null;
  body: string;
  /** RFC 3339 UTC, e.g. 2026-02-05T09:10:00Z. */
  created: string;
}
export interface TaskRec {
  id: number;
  feature: string;
  discipline: string;
  title: string;
  description: string;
  status: string;
  priority: string | null;
  tags: string[];
  depends_on: number[];
  blocked_by: string | null;
  /** Task dates are days (YYYY-MM-DD) on both generations. */
  created: string;
  updated: string | null;
  completed: string | null;
  acceptance_criteria: string[];
  context_files: string[];
  output_artifacts: string[];
  hints: string | null;
  estimated_turns: number | null;
  provenance: 'agent' | 'human';
  comments: CommentRec[];
  /** When the blocked_by reason was given (the normalized generation keeps it as a `blocked` signal). */
  blocked_at: string;
}
interface Sink {
  discipline(d: DisciplineRec): void;
  feature(f: FeatureRec): void;
  task(t: TaskRec): void;
}

/**
 * The project, record by record, into a sink (tasks are streamed: 100k of them are never all in
 * memory). The random stream is drawn in one fixed order, whichever generation is written: the legacy
 * rows are the ones this bench always generated for a seed.
 */
function planProject(tasks: number, seed: number, sink: Sink): void {
  const r = rng(seed);
  for (const [name, display, acr, icon, color, prompt, skills] of DISCIPLINES) {
    const conventions = `- ${sentence(r)}\n- ${sentence(r)}`;
    sink.discipline({
      name,
      display_name: display,
      acronym: acr,
      icon,
      color,
      system_prompt: prompt,
      skills: JSON.parse(skills) as string[],
      conventions,
      description: sentence(r),
    });
  }
  for (const [name, display, acr, desc] of FEATURES) {
    const learnings = Array.from(
      { length: 3 + int(r, 4) },
      (_, i): LearningRec => ({
        text: sentence(r, 8, 20),
        source: pick(r, ['auto', 'agent', 'human', 'opus_reviewed'] as const),
        task_id: 1 + int(r, tasks),
        created: `2026-01-${String(10 + i).padStart(2, '0')}T10:00:00Z`,
        hit_count: 1 + int(r, 4),
        reviewed: r() < 0.5,
        review_count: int(r, 3),
      }),
    );
    const architecture = paragraph(r, 1, 2);
    sink.feature({
      name,
      display_name: display,
      acronym: acr,
      description: desc,
      created: '2026-01-02',
      context_files: [`src/${name}/index.ts`, `docs/${name}.md`],
      architecture,
      boundaries: sentence(r),
      learnings,
    });
  }
  for (let id = 1; id <= tasks; id++) {
    const feature = FEATURES[int(r, FEATURES.length)]![0];
    const discipline = DISCIPLINES[int(r, DISCIPLINES.length)]![0];
    const status = weighted(r);
    let deps: number[] = [];
    if (id > 5 && r() < 0.4) {
      // 1–3 earlier tasks, mostly recent ones (work in a feature builds on itself)
      const n = 1 + int(r, 3);
      deps = [...new Set(Array.from({ length: n }, () => Math.max(1, id - 1 - int(r, Math.min(id - 1, 200)))))];
    }
    const day = String(1 + int(r, 28)).padStart(2, '0');
    const t: TaskRec = {
      id,
      feature,
      discipline,
      title: title(r),
      description: paragraph(r, 2, 4),
      status,
      priority: pick(r, PRIORITY_POOL),
      tags: [pick(r, NOUNS), ...(r() < 0.5 ? [pick(r, ADJ)] : [])],
      depends_on: deps,
      blocked_by: status === 'blocked' ? sentence(r) : null,
      created: `2026-01-${day}`,
      updated: r() < 0.5 ? `2026-02-${day}` : null,
      completed: status === 'done' ? `2026-02-${day}` : null,
      acceptance_criteria: Array.from({ length: 1 + int(r, 3) }, () => sentence(r, 5, 10)),
      context_files: r() < 0.5 ? [`src/${feature}/${pick(r, NOUNS)}.ts`] : [],
      output_artifacts: status === 'done' ? [`src/${feature}/${pick(r, NOUNS)}.ts`] : [],
      hints: r() < 0.3 ? sentence(r) : null,
      estimated_turns: r() < 0.5 ? 1 + int(r, 20) : null,
      provenance: r() < 0.7 ? 'agent' : 'human',
      comments: [],
      blocked_at: `2026-02-${day}T08:00:00Z`,
    };
    if (r() < 1 / 3) {
      const n = 1 + int(r, 2);
      for (let k = 0; k < n; k++) {
        const by = DISCIPLINES[int(r, DISCIPLINES.length)]![0];
        const priority = r() < 0.1 ? 'high' : null;
        t.comments.push({
          author: by,
          discipline: by,
          agent_task_id: id,
          priority,
          body: `${status === 'done' && k === n - 1 ? 'Done: ' : ''}${paragraph(r, 1, 2)}`,
          created: `2026-02-${day}T09:${String(10 + k).padStart(2, '0')}:00Z`,
        });
      }
    }
    const common = commonWords(seed, id);
    if (common.title.length > 0) t.title = `${capitalised(common.title.join(' '))}: ${t.title}`;
    for (const w of common.description) t.description += ` Touches the ${w} too.`;
    sink.task(t);
  }
}

// ---- writers, one per generation ------------------------------------------------------------------

/** Legacy (Ralph 936f316): one row per task, lists as JSON in TEXT columns, comments in task_comments. */
function legacySink(db: Database.Database): Sink {
  const disc = db.prepare(
    'INSERT INTO disciplines (name, display_name, acronym, icon, color, system_prompt, skills, conventions, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const feat = db.prepare(
    'INSERT INTO features (name, display_name, acronym, description, created, knowledge_paths, context_files, architecture, boundaries, learnings, dependencies) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const task = db.prepare(
    `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, tags, depends_on, blocked_by, created, updated, completed,
       acceptance_criteria, context_files, output_artifacts, hints, estimated_turns, provenance)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const comment = db.prepare(
    'INSERT INTO task_comments (task_id, author, discipline, agent_task_id, priority, body, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const j = JSON.stringify;
  return {
    discipline: (d) =>
      disc.run(
        d.name,
        d.display_name,
        d.acronym,
        d.icon,
        d.color,
        d.system_prompt,
        j(d.skills),
        d.conventions,
        d.description,
      ),
    feature: (f) =>
      feat.run(
        f.name,
        f.display_name,
        f.acronym,
        f.description,
        f.created,
        '[]',
        j(f.context_files),
        f.architecture,
        f.boundaries,
        j(f.learnings),
        '[]',
      ),
    task(t) {
      task.run(
        t.id,
        t.feature,
        t.discipline,
        t.title,
        t.description,
        t.status,
        t.priority,
        j(t.tags),
        j(t.depends_on),
        t.blocked_by,
        t.created,
        t.updated,
        t.completed,
        j(t.acceptance_criteria),
        j(t.context_files),
        j(t.output_artifacts),
        t.hints,
        t.estimated_turns,
        t.provenance,
      );
      for (const c of t.comments)
        comment.run(t.id, c.author, c.discipline, c.agent_task_id, c.priority, c.body, c.created);
    },
  };
}

/**
 * Normalized (Ralph's head 0c56edd), as Ralph's own code leaves the rows: a task is a `task_details` row
 * and a `runtime_tasks` row (both with the task's id, as a converted legacy project has them) plus one row
 * per list item (criteria with criterion_order 0..n-1); a comment is a `learned` signal (kind discovery,
 * scope task) in session `legacy-task-<id>`, whose `agent_sessions` row (kind manual, started by a human,
 * finished, started = ended = the first signal's time, the next session_number) comes with its first
 * signal; a task's blocked_by is a `blocked` signal (on = the reason, kind external), its nearest
 * equivalent; a learning is a `subsystem_comments` row of category learning. Nothing of ralph-mcp's own
 * (ralph_mcp_* tables: comment authorship, learning source/hits/review) is written: Ralph writes none,
 * and the server makes its tables on its first write.
 */
function normalizedSink(db: Database.Database): Sink {
  const disc = db.prepare(
    'INSERT INTO disciplines (name, display_name, acronym, icon, color, description, system_prompt, conventions) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const skill = db.prepare('INSERT INTO discipline_skills (discipline_id, skill) VALUES (?, ?)');
  const sub = db.prepare(
    "INSERT INTO subsystems (name, display_name, acronym, description, architecture, boundaries, status, created) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)",
  );
  const subFile = db.prepare('INSERT INTO subsystem_context_files (subsystem_id, file_path) VALUES (?, ?)');
  const learning = db.prepare(
    "INSERT INTO subsystem_comments (subsystem_id, category, agent_task_id, body, created) VALUES (?, 'learning', ?, ?, ?)",
  );
  const details = db.prepare(
    `INSERT INTO task_details (id, discipline_id, title, description, priority, hints, estimated_turns, created, updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const runtime = db.prepare(
    `INSERT INTO runtime_tasks (id, subsystem_id, details_id, status, provenance, created, updated, completed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const tag = db.prepare('INSERT INTO task_tags (task_id, tag) VALUES (?, ?)');
  const dep = db.prepare('INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (?, ?)');
  const criterion = db.prepare(
    'INSERT INTO task_acceptance_criteria (task_id, criterion, criterion_order) VALUES (?, ?, ?)',
  );
  const file = db.prepare('INSERT INTO task_context_files (task_id, file_path) VALUES (?, ?)');
  const artifact = db.prepare('INSERT INTO task_output_artifacts (task_id, artifact_path) VALUES (?, ?)');
  const session = db.prepare(
    "INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status) VALUES (?, ?, 'manual', 'human', ?, ?, ?, 'finished')",
  );
  const learned = db.prepare(
    "INSERT INTO task_signals (task_id, session_id, verb, text, kind, scope, created) VALUES (?, ?, 'learned', ?, 'discovery', 'task', ?)",
  );
  const blocked = db.prepare(
    "INSERT INTO task_signals (task_id, session_id, verb, \"on\", kind, created) VALUES (?, ?, 'blocked', ?, 'external', ?)",
  );
  const disciplineIds = new Map<string, number>();
  const subsystemIds = new Map<string, number>();
  let sessionNumber = (
    db.prepare('SELECT coalesce(max(session_number), 0) AS n FROM agent_sessions').get() as { n: number }
  ).n;
  return {
    discipline(d) {
      const id = Number(
        disc.run(d.name, d.display_name, d.acronym, d.icon, d.color, d.description, d.system_prompt, d.conventions)
          .lastInsertRowid,
      );
      disciplineIds.set(d.name, id);
      for (const s of d.skills) skill.run(id, s);
    },
    feature(f) {
      const id = Number(
        sub.run(f.name, f.display_name, f.acronym, f.description, f.architecture, f.boundaries, f.created)
          .lastInsertRowid,
      );
      subsystemIds.set(f.name, id);
      for (const p of f.context_files) subFile.run(id, p);
      for (const l of f.learnings) learning.run(id, l.task_id, l.text, l.created);
    },
    task(t) {
      details.run(
        t.id,
        disciplineIds.get(t.discipline)!,
        t.title,
        t.description,
        t.priority,
        t.hints,
        t.estimated_turns,
        t.created,
        t.updated,
      );
      runtime.run(t.id, subsystemIds.get(t.feature)!, t.id, t.status, t.provenance, t.created, t.updated, t.completed);
      for (const x of t.tags) tag.run(t.id, x);
      for (const d of t.depends_on) dep.run(t.id, d);
      for (const [i, c] of t.acceptance_criteria.entries()) criterion.run(t.id, c, i);
      for (const p of t.context_files) file.run(t.id, p);
      for (const p of t.output_artifacts) artifact.run(t.id, p);
      const sid = `legacy-task-${t.id}`;
      let opened = false;
      const open = (at: string) => {
        if (opened) return;
        session.run(sid, ++sessionNumber, t.id, at, at);
        opened = true;
      };
      for (const c of t.comments) {
        open(c.created);
        learned.run(t.id, sid, c.body, c.created);
      }
      if (t.blocked_by !== null) {
        open(t.blocked_at);
        blocked.run(t.id, sid, t.blocked_by, t.blocked_at);
      }
    },
  };
}

// ---- generating a project -------------------------------------------------------------------------

export interface GenStats {
  generation: Generation;
  tasks: number;
  /** Comments (legacy task_comments; normalized learned signals). */
  comments: number;
  /** Rows in the comment table the server reads (normalized: task_signals, comments + blocked signals). */
  commentRows: number;
  withDeps: number;
  ready: number;
  /** Rows written into Ralph's tables (all tables). */
  rows: number;
  ms: number;
}

/**
 * `ralph-mcp init --schema <generation> --no-disciplines` with `cli`, then the project's rows in one
 * transaction. Returns counts and the time taken. The same seed gives the same project on either
 * generation.
 */
export function generateProject(
  cli: string,
  dir: string,
  tasks: number,
  seed = 42,
  env: NodeJS.ProcessEnv = process.env,
  generation: Generation = 'legacy',
): GenStats {
  const t0 = performance.now();
  const init = spawnSync(
    process.execPath,
    [
      cli,
      'init',
      '--project',
      dir,
      '--schema',
      generation,
      '--no-disciplines',
      '--title',
      `Bench ${tasks}`,
      '--description',
      'Generated by npm run bench',
    ],
    {
      encoding: 'utf8',
      timeout: 30_000,
      env,
    },
  );
  if (init.status !== 0)
    throw new Error(`ralph-mcp init --schema ${generation} failed (${init.status}): ${init.stderr}`);
  const db = new Database(join(dir, '.ralph', 'db', 'ralph.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const found = generationOf(db);
  if (found !== generation) throw new Error(`ralph-mcp init --schema ${generation} made a ${found} database`);
  const rowsBefore = totalRows(db);
  let comments = 0;
  let withDeps = 0;
  db.transaction(() => {
    const sink = generation === 'legacy' ? legacySink(db) : normalizedSink(db);
    planProject(tasks, seed, {
      discipline: sink.discipline,
      feature: sink.feature,
      task(t) {
        comments += t.comments.length;
        if (t.depends_on.length > 0) withDeps++;
        sink.task(t);
      },
    });
  })();
  const fk = db.pragma('foreign_key_check') as unknown[];
  if (fk.length > 0)
    throw new Error(
      `generated ${generation} database breaks ${fk.length} foreign key(s): ${JSON.stringify(fk.slice(0, 3))}`,
    );
  const ready = readyCount(db);
  const commentRows = rowCounts(db).comments;
  const rows = totalRows(db) - rowsBefore;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { generation, tasks, comments, commentRows, withDeps, ready, rows, ms: performance.now() - t0 };
}

function totalRows(db: Database.Database): number {
  const tables = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'ralph_mcp_%'",
      )
      .all() as { name: string }[]
  ).map((t) => t.name);
  return tables.reduce((n, t) => n + (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n, 0);
}

// ---- the bench's own SQL on either generation -------------------------------------------------------

/** Which generation a database is (by its tables: both report user_version 1). */
export function generationOf(db: Database.Database): Generation {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runtime_tasks'").get()
    ? 'normalized'
    : 'legacy';
}

const SQL = {
  legacy: {
    ready: `SELECT count(*) AS n FROM tasks t WHERE t.status = 'pending' AND NOT EXISTS (
              SELECT 1 FROM json_each(t.depends_on) d LEFT JOIN tasks dep ON dep.id = d.value WHERE dep.status IS NOT 'done')`,
    pending: "SELECT id FROM tasks WHERE status = 'pending' ORDER BY id LIMIT 1",
    statuses: 'SELECT id, status FROM tasks WHERE id <= ?',
    tasks: 'SELECT count(*) AS n FROM tasks',
    comments: 'SELECT count(*) AS n FROM task_comments',
  },
  normalized: {
    ready: `SELECT count(*) AS n FROM runtime_tasks t WHERE t.status = 'pending' AND NOT EXISTS (
              SELECT 1 FROM task_dependencies dd LEFT JOIN runtime_tasks dep ON dep.id = dd.depends_on_task_id
              WHERE dd.task_id = t.id AND dep.status IS NOT 'done')`,
    pending: "SELECT id FROM runtime_tasks WHERE status = 'pending' ORDER BY id LIMIT 1",
    statuses: 'SELECT id, status FROM runtime_tasks WHERE id <= ?',
    tasks: 'SELECT count(*) AS n FROM runtime_tasks',
    comments: 'SELECT count(*) AS n FROM task_signals',
  },
} as const;

/** Pending tasks whose dependencies are all done (what claim_next_task can hand out). */
export function readyCount(db: Database.Database): number {
  return (db.prepare(SQL[generationOf(db)].ready).get() as { n: number }).n;
}

/** The first pending task (a task_execution session's task). */
export function pendingTaskId(db: Database.Database): number {
  return (db.prepare(SQL[generationOf(db)].pending).get() as { id: number }).id;
}

/** Every task's status up to an id (set_task_status alternates them). */
export function taskStatuses(db: Database.Database, maxId: number): Map<number, string> {
  return new Map(
    (db.prepare(SQL[generationOf(db)].statuses).all(maxId) as { id: number; status: string }[]).map((x) => [
      x.id,
      x.status,
    ]),
  );
}

/** Tasks and comment rows (legacy tasks / task_comments; normalized runtime_tasks / task_signals). */
export function rowCounts(db: Database.Database): { tasks: number; comments: number } {
  const q = SQL[generationOf(db)];
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return { tasks: one(q.tasks), comments: one(q.comments) };
}
