import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Bench projects: `ralph-mcp init`, then one bulk INSERT transaction with realistic rows (the way Ralph
 * writes them: plain SQL, JSON in TEXT columns). Deterministic (seeded), so runs compare.
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
  ['frontend', 'Frontend', 'FRNT', 'Code', '#068d87', 'You build the React UI with accessible components.', '["react","typescript","css"]'],
  ['backend', 'Backend', 'BACK', 'Server', '#ea7805', 'You own the API, the services and their contracts.', '["node","postgres","http"]'],
  ['database', 'Database', 'DATA', 'Database', '#2563eb', 'You design schemas, migrations and queries.', '["sql","sqlite","migrations"]'],
  ['quality', 'Quality', 'QUAL', 'FlaskConical', '#7a10ff', 'You write unit, integration and end-to-end tests.', '["vitest","playwright"]'],
  ['devops', 'DevOps', 'DVOP', 'Cloud', '#16a34a', 'You own CI, deployment and observability.', '["docker","github-actions","terraform"]'],
  ['documentation', 'Documentation', 'DOCS', 'BookOpen', '#3b82f6', 'You write user and developer documentation.', '["markdown"]'],
] as const;

const VERBS = ['Add', 'Implement', 'Refactor', 'Fix', 'Document', 'Test', 'Migrate', 'Optimise', 'Validate', 'Cache', 'Expose', 'Remove', 'Wire up', 'Harden', 'Instrument', 'Split', 'Rename', 'Paginate', 'Debounce', 'Localise'];
const ADJ = ['stale', 'nested', 'optional', 'encrypted', 'paginated', 'cached', 'signed', 'retryable', 'concurrent', 'partial', 'expired', 'default', 'legacy', 'async', 'batched', 'scheduled', 'archived', 'shared', 'private', 'public'];
const NOUNS = [
  'session', 'token', 'invoice', 'webhook', 'subscription', 'migration', 'index', 'query', 'endpoint', 'handler', 'component', 'form', 'modal', 'table',
  'export', 'report', 'dashboard', 'filter', 'cursor', 'queue', 'worker', 'job', 'schedule', 'template', 'preference', 'notification', 'email', 'banner',
  'wizard', 'tour', 'snapshot', 'conflict', 'replica', 'cache', 'flag', 'role', 'permission', 'audit', 'log', 'metric', 'trace', 'alert', 'config',
  'schema', 'column', 'constraint', 'trigger', 'payload', 'response', 'request', 'retry', 'timeout', 'upload', 'attachment', 'avatar', 'locale', 'currency',
];
const FUNCTION_WORDS = ['the', 'a', 'and', 'to', 'of', 'in', 'it', 'when', 'with', 'for', 'on', 'that', 'we', 'so', 'should', 'from', 'before', 'after', 'must', 'only', 'each', 'every', 'no', 'still', 'already', 'once', 'again', 'never', 'always', 'first', 'last'];
const CONTENT_WORDS = [
  ...NOUNS, ...ADJ,
  'user', 'server', 'client', 'database', 'page', 'list', 'field', 'value', 'error', 'message', 'state', 'store', 'route', 'hook', 'test', 'build', 'release',
  'returns', 'stores', 'renders', 'validates', 'retries', 'logs', 'updates', 'deletes', 'creates', 'reads', 'writes', 'sends', 'checks', 'handles', 'keeps',
  'quickly', 'safely', 'correctly', 'empty', 'large', 'small', 'slow', 'broken', 'missing', 'duplicate', 'flaky', 'mobile', 'desktop', 'tablet', 'offline',
  'api', 'ui', 'sql', 'json', 'csv', 'http', 'oauth', 'stripe', 'postgres', 'sqlite', 'redis', 'react', 'node', 'docker', 'ci', 'utc', 'timezone', 'graphql',
];
const SUFFIXES = ['Service', 'Store', 'Handler', 'Controller', 'Repository', 'Client', 'Schema', 'View', 'Hook', 'Queue', 'Worker', 'Config'];
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
export const paragraph = (r: Rand, min: number, max: number) => Array.from({ length: min + int(r, max - min + 1) }, () => sentence(r)).join(' ');
export const title = (r: Rand) => `${pick(r, VERBS)} ${pick(r, ADJ)} ${pick(r, NOUNS)} ${r() < 0.5 ? pick(r, NOUNS) : `in ${pick(r, IDENTIFIERS)}`}`;
/** Two words a search would plausibly use: a topic noun and an adjective, noun or code identifier. */
export const searchQuery = (r: Rand) => `${pick(r, NOUNS)} ${pick(r, r() < 0.4 ? IDENTIFIERS : r() < 0.5 ? ADJ : NOUNS)}`;

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
    if ((x -= w) < 0) return s;
  }
  return 'pending';
}

export interface GenStats {
  tasks: number;
  comments: number;
  withDeps: number;
  ready: number;
  ms: number;
}

/** `ralph-mcp init` + bulk rows. Returns counts and the time taken. */
export function generateProject(cli: string, dir: string, tasks: number, seed = 42, env: NodeJS.ProcessEnv = process.env): GenStats {
  const t0 = performance.now();
  const init = spawnSync(process.execPath, [cli, 'init', '--project', dir, '--title', `Bench ${tasks}`, '--description', 'Generated by npm run bench'], {
    encoding: 'utf8',
    timeout: 30_000,
    env,
  });
  if (init.status !== 0) throw new Error(`ralph-mcp init failed (${init.status}): ${init.stderr}`);
  const r = rng(seed);
  const db = new Database(join(dir, '.ralph', 'db', 'ralph.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  let comments = 0;
  let withDeps = 0;
  db.transaction(() => {
    const disc = db.prepare(
      'INSERT INTO disciplines (name, display_name, acronym, icon, color, system_prompt, skills, conventions, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const [name, display, acr, icon, color, prompt, skills] of DISCIPLINES) {
      disc.run(name, display, acr, icon, color, prompt, skills, `- ${sentence(r)}\n- ${sentence(r)}`, sentence(r));
    }
    const feat = db.prepare(
      'INSERT INTO features (name, display_name, acronym, description, created, knowledge_paths, context_files, architecture, boundaries, learnings, dependencies) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const [name, display, acr, desc] of FEATURES) {
      const learnings = Array.from({ length: 3 + int(r, 4) }, (_, i) => ({
        text: sentence(r, 8, 20),
        source: pick(r, ['auto', 'agent', 'human', 'opus_reviewed'] as const),
        task_id: 1 + int(r, tasks),
        created: `2026-01-${String(10 + i).padStart(2, '0')}T10:00:00Z`,
        hit_count: 1 + int(r, 4),
        reviewed: r() < 0.5,
        review_count: int(r, 3),
      }));
      feat.run(
        name, display, acr, desc, '2026-01-02', '[]', JSON.stringify([`src/${name}/index.ts`, `docs/${name}.md`]),
        paragraph(r, 1, 2), sentence(r), JSON.stringify(learnings), '[]',
      );
    }
    const task = db.prepare(
      `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, tags, depends_on, blocked_by, created, updated, completed,
         acceptance_criteria, context_files, output_artifacts, hints, estimated_turns, provenance)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const comment = db.prepare('INSERT INTO task_comments (task_id, author, discipline, agent_task_id, priority, body, created) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (let id = 1; id <= tasks; id++) {
      const feature = FEATURES[int(r, FEATURES.length)]![0];
      const discipline = DISCIPLINES[int(r, DISCIPLINES.length)]![0];
      const status = weighted(r);
      let deps: number[] = [];
      if (id > 5 && r() < 0.4) {
        // 1–3 earlier tasks, mostly recent ones (work in a feature builds on itself)
        const n = 1 + int(r, 3);
        deps = [...new Set(Array.from({ length: n }, () => Math.max(1, id - 1 - int(r, Math.min(id - 1, 200)))))];
        withDeps++;
      }
      const day = String(1 + int(r, 28)).padStart(2, '0');
      task.run(
        id,
        feature,
        discipline,
        title(r),
        paragraph(r, 2, 4),
        status,
        pick(r, PRIORITY_POOL),
        JSON.stringify([pick(r, NOUNS), ...(r() < 0.5 ? [pick(r, ADJ)] : [])]),
        JSON.stringify(deps),
        status === 'blocked' ? sentence(r) : null,
        `2026-01-${day}`,
        r() < 0.5 ? `2026-02-${day}` : null,
        status === 'done' ? `2026-02-${day}` : null,
        JSON.stringify(Array.from({ length: 1 + int(r, 3) }, () => sentence(r, 5, 10))),
        JSON.stringify(r() < 0.5 ? [`src/${feature}/${pick(r, NOUNS)}.ts`] : []),
        JSON.stringify(status === 'done' ? [`src/${feature}/${pick(r, NOUNS)}.ts`] : []),
        r() < 0.3 ? sentence(r) : null,
        r() < 0.5 ? 1 + int(r, 20) : null,
        r() < 0.7 ? 'agent' : 'human',
      );
      if (r() < 1 / 3) {
        const n = 1 + int(r, 2);
        for (let k = 0; k < n; k++) {
          const by = DISCIPLINES[int(r, DISCIPLINES.length)]![0];
          comment.run(id, by, by, id, r() < 0.1 ? 'high' : null, `${status === 'done' && k === n - 1 ? 'Done: ' : ''}${paragraph(r, 1, 2)}`, `2026-02-${day}T09:${String(10 + k).padStart(2, '0')}:00Z`);
          comments++;
        }
      }
    }
  })();
  const ready = readyCount(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { tasks, comments, withDeps, ready, ms: performance.now() - t0 };
}

/** Pending tasks whose dependencies are all done (what claim_next_task can hand out). */
export function readyCount(db: Database.Database): number {
  return (
    db
      .prepare(
        `SELECT count(*) AS n FROM tasks t WHERE t.status = 'pending' AND NOT EXISTS (
           SELECT 1 FROM json_each(t.depends_on) d LEFT JOIN tasks dep ON dep.id = d.value WHERE dep.status IS NOT 'done')`,
      )
      .get() as { n: number }
  ).n;
}
