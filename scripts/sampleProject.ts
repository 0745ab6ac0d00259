import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import type { Project } from '../src/domain/project.js';
import { initProject } from '../src/store/open/init.js';
import { migrateDatabase } from '../src/store/migrate/index.js';
import type { Generation } from '../src/store/records.js';

/**
 * A small but realistic Ralph project, written with the project's own `init` and plain SQL (the way
 * Ralph itself writes rows). Used by the demo and by every test that does not need a fixture file.
 *
 * Tasks:  1 done  ← 2 done ← 3 in_progress ← 4 pending
 *         5 pending (no deps)   6 draft   7 blocked (on 3)   8 skipped
 *
 * On the normalized generation it is the same project moved by `ralph-mcp migrate` (which checks that
 * every record reads back as before): the same ids, names, comments and learnings on both, so one
 * contract suite can assert the same things of either.
 */
export function createSampleProject(dir: string, title = 'Recipe Box', schema: Generation = 'legacy'): Project {
  const project = createLegacySample(dir, title);
  if (schema === 'normalized') {
    const r = migrateDatabase(project.dbPath);
    if (r.migrated) rmSync(r.backup);
  }
  return project;
}

function createLegacySample(dir: string, title: string): Project {
  const project = initProject(dir, {
    title,
    description: 'A web app to collect, tag and search cooking recipes.',
    schema: 'legacy',
    disciplines: false,
  });
  const db = new Database(project.dbPath);
  db.pragma('foreign_keys = ON');
  const insert = db.transaction(() => {
    const discipline = db.prepare(
      'INSERT INTO disciplines (name, display_name, acronym, icon, color, system_prompt, skills, conventions) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    discipline.run(
      'frontend',
      'Frontend',
      'FRNT',
      'Code',
      '#068d87',
      'You build the React UI.',
      '["react","typescript"]',
      '- Components in src/ui/',
    );
    discipline.run(
      'backend',
      'Backend',
      'BACK',
      'Server',
      '#ea7805',
      'You own the API and the database.',
      '["node","sqlite"]',
      '- Handlers stay thin',
    );
    discipline.run('quality', 'Quality', 'QUAL', 'FlaskConical', '#7a10ff', 'You write tests.', '["vitest"]', null);
    discipline.run('documentation', 'Documentation', 'DOCS', 'BookOpen', '#3b82f6', 'You write the docs.', '[]', null);

    const feature = db.prepare(
      'INSERT INTO features (name, display_name, acronym, description, created, context_files, learnings) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    feature.run(
      'recipes',
      'Recipe CRUD',
      'RCPE',
      'Create, read, update and delete recipes',
      '2026-01-02',
      '["src/api/recipes.ts"]',
      JSON.stringify([
        'Validate ingredient quantities on the server',
        {
          text: 'Always store quantities in grams, convert only for display',
          source: 'human',
          created: '2026-01-03T10:00:00Z',
          hit_count: 3,
          reviewed: true,
          review_count: 1,
        },
      ]),
    );
    feature.run('search', 'Search', 'SRCH', 'Full-text search over recipes and tags', '2026-01-02', '[]', '[]');
    feature.run('auth', 'Authentication', 'AUTH', 'Sign-in with email links', '2026-01-02', '[]', '[]');

    const task = db.prepare(
      `INSERT INTO tasks (id, feature, discipline, title, description, status, priority, tags, depends_on, blocked_by, created, completed,
         acceptance_criteria, context_files, hints, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '2026-01-02', ?, ?, ?, ?, ?)`,
    );
    task.run(
      1,
      'recipes',
      'backend',
      'Recipe table and migrations',
      'SQLite table for recipes with ingredients as JSON',
      'done',
      'high',
      '["db"]',
      '[]',
      null,
      '2026-01-04',
      '["Migration runs on an empty database"]',
      '["src/db/schema.sql"]',
      null,
      'human',
    );
    task.run(
      2,
      'recipes',
      'backend',
      'Recipe REST endpoints',
      'GET/POST/PUT/DELETE /api/recipes',
      'done',
      'high',
      '["api"]',
      '[1]',
      null,
      '2026-01-05',
      '["All four verbs covered by tests"]',
      '["src/api/recipes.ts"]',
      'Reuse the validation helper',
      'agent',
    );
    task.run(
      3,
      'recipes',
      'frontend',
      'Recipe editor form',
      'Form to create and edit a recipe with a dynamic ingredient list',
      'in_progress',
      'medium',
      '["ui","forms"]',
      '[2]',
      null,
      null,
      '["Ingredients can be added and removed","Shows server validation errors"]',
      '["src/ui/RecipeForm.tsx"]',
      'Follow the pattern in src/ui/LoginForm.tsx',
      'agent',
    );
    task.run(
      4,
      'recipes',
      'quality',
      'Editor end-to-end tests',
      'Playwright tests for the recipe editor',
      'pending',
      'medium',
      '["testing"]',
      '[3]',
      null,
      null,
      '[]',
      '[]',
      null,
      'agent',
    );
    task.run(
      5,
      'search',
      'backend',
      'FTS index over recipes',
      'SQLite FTS5 table kept in sync by triggers',
      'pending',
      'critical',
      '["db","search"]',
      '[]',
      null,
      null,
      '["Search for a word in a title finds the recipe"]',
      '[]',
      null,
      'agent',
    );
    task.run(
      6,
      'search',
      'frontend',
      'Search box with suggestions',
      'Typeahead search in the header',
      'draft',
      'low',
      '["ui"]',
      '[]',
      null,
      null,
      '[]',
      '[]',
      null,
      'agent',
    );
    task.run(
      7,
      'auth',
      'backend',
      'Email sign-in links',
      'Send a one-time sign-in link by email',
      'blocked',
      'high',
      '["auth"]',
      '[3]',
      'Waiting for the SMTP credentials',
      null,
      '[]',
      '[]',
      null,
      'human',
    );
    task.run(
      8,
      'auth',
      'documentation',
      'Document the sign-in flow',
      'User-facing docs for signing in',
      'skipped',
      'low',
      '["docs"]',
      '[]',
      null,
      null,
      '[]',
      '[]',
      null,
      'agent',
    );

    const comment = db.prepare(
      'INSERT INTO task_comments (task_id, author, discipline, agent_task_id, priority, body, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    comment.run(
      1,
      'backend',
      'backend',
      1,
      null,
      'Done: recipes table with a JSON ingredients column, migration 001.',
      '2026-01-04T09:00:00Z',
    );
    comment.run(
      2,
      'backend',
      'backend',
      2,
      null,
      'Done: endpoints in src/api/recipes.ts; validation in src/api/validate.ts.',
      '2026-01-05T09:00:00Z',
    );
    comment.run(
      3,
      'frontend',
      'frontend',
      3,
      'high',
      'The API returns 422 with a field map on validation errors.',
      '2026-01-06T09:00:00Z',
    );
    comment.run(7, 'human', null, null, null, 'SMTP credentials are coming next week.', '2026-01-06T10:00:00Z');
  });
  insert();
  db.close();
  return project;
}
