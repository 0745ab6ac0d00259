import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Project } from '../../src/domain/project.js';
import { ACRONYM_RE, jsonArray, refused, row, rows, useSession, type AnyRow } from '../helpers/assertions.js';

/**
 * Integration tests for the discipline tools (list_disciplines, get_discipline, create_discipline,
 * update_discipline, delete_discipline) through the real built server.
 * Seeded: frontend FRNT, backend BACK, quality QUAL, documentation DOCS (inserted in that order).
 */

const disciplineRow = (p: Project, name: string): AnyRow | undefined =>
  row(p, 'SELECT * FROM disciplines WHERE name = ?', name);

// ---- list_disciplines / get_discipline -------------------------------------------------------

describe('list_disciplines and get_discipline', () => {
  const ctx = useSession();

  test('list_disciplines returns every discipline in insertion order, matching the database', async () => {
    const r = await ctx.s.ok('list_disciplines', {});
    assert.deepEqual(
      r.disciplines,
      rows(ctx.p, 'SELECT name, display_name, acronym, icon, color, description FROM disciplines ORDER BY rowid'),
    );
    assert.deepEqual(
      r.disciplines.map((d: AnyRow) => d.name),
      ['frontend', 'backend', 'quality', 'documentation'],
    );
  });

  test('get_discipline returns the discipline in full', async () => {
    const r = await ctx.s.ok('get_discipline', { name: 'backend' });
    const d = r.discipline;
    const db = disciplineRow(ctx.p, 'backend')!;
    assert.equal(d.name, 'backend');
    assert.equal(d.display_name, 'Backend');
    assert.equal(d.acronym, 'BACK');
    assert.equal(d.icon, db.icon);
    assert.equal(d.color, '#ea7805');
    assert.equal(d.system_prompt, 'You own the API and the database.');
    assert.deepEqual(d.skills, ['node', 'sqlite']);
    assert.equal(d.conventions, '- Handlers stay thin');
    assert.deepEqual(d.mcp_servers, []);
    assert.equal(d.mcp_tool_overrides, null);
    const q = await ctx.s.ok('get_discipline', { name: 'quality' });
    assert.equal(q.discipline.conventions, null);
  });

  test('unknown discipline is not_found; bad arguments are invalid_argument', async () => {
    const e = await refused(ctx.s, ctx.p, 'get_discipline', { name: 'devops' }, 'not_found');
    assert.match(e.message, /backend/, 'the message lists existing disciplines');
    await refused(ctx.s, ctx.p, 'get_discipline', {}, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'get_discipline', { name: null }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'list_disciplines', { all: true }, 'invalid_argument');
  });
});

// ---- create_discipline -----------------------------------------------------------------------

describe('create_discipline', () => {
  const ctx = useSession();

  test('creates a discipline with every field', async () => {
    const r = await ctx.s.ok('create_discipline', {
      name: 'devops',
      display_name: 'DevOps',
      icon: 'Cloud',
      color: '#1E90ff',
      acronym: 'DVOP',
      system_prompt: 'You run CI and deploys.',
      skills: ['docker', 'github-actions'],
      conventions: '- Pin every action by SHA',
    });
    const d = disciplineRow(ctx.p, 'devops')!;
    assert.ok(d, 'the row exists');
    assert.equal(d.display_name, 'DevOps');
    assert.equal(d.icon, 'Cloud');
    assert.equal(d.color, '#1E90ff');
    assert.equal(d.acronym, 'DVOP');
    assert.equal(d.system_prompt, 'You run CI and deploys.');
    assert.deepEqual(jsonArray(d.skills, 'skills'), ['docker', 'github-actions']);
    assert.equal(d.conventions, '- Pin every action by SHA');
    assert.deepEqual(jsonArray(d.mcp_servers, 'mcp_servers'), []);
    assert.equal(d.mcp_tool_overrides, null);
    assert.equal(r.discipline.acronym, 'DVOP');
    assert.deepEqual(r.discipline.skills, ['docker', 'github-actions']);
  });

  test('the acronym is derived when omitted: 4 chars [A-Z0-9], unique', async () => {
    const a = await ctx.s.ok('create_discipline', {
      name: 'design',
      display_name: 'Design',
      icon: 'Palette',
      color: '#ff00aa',
    });
    assert.match(a.discipline.acronym, ACRONYM_RE);
    assert.equal(disciplineRow(ctx.p, 'design')!.acronym, a.discipline.acronym);
    // "Frontend" derives FRNT, which the seeded frontend discipline already holds.
    const b = await ctx.s.ok('create_discipline', {
      name: 'frontend-2',
      display_name: 'Frontend',
      icon: 'Code',
      color: '#000000',
    });
    assert.match(b.discipline.acronym, ACRONYM_RE);
    assert.notEqual(b.discipline.acronym, 'FRNT');
    const c = await ctx.s.ok('create_discipline', {
      name: 'frontend-3',
      display_name: 'Frontend',
      icon: 'Code',
      color: '#000000',
    });
    assert.match(c.discipline.acronym, ACRONYM_RE);
    assert.notEqual(c.discipline.acronym, b.discipline.acronym);
    const all = rows(ctx.p, 'SELECT acronym FROM disciplines').map((x) => x.acronym as string);
    assert.equal(new Set(all).size, all.length, `acronyms are unique: ${all.join(', ')}`);
    for (const x of all) assert.match(x, ACRONYM_RE);
    const d = disciplineRow(ctx.p, 'design')!;
    assert.deepEqual(jsonArray(d.skills, 'skills'), []);
    assert.equal(d.system_prompt, null);
  });

  test('an explicit duplicate acronym is conflict', async () => {
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'backend-2', display_name: 'Backend 2', icon: 'Server', color: '#111111', acronym: 'BACK' },
      'conflict',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'backend-2', display_name: 'Backend 2', icon: 'Server', color: '#111111', acronym: 'DVOP' },
      'conflict',
    );
  });

  test('a bad acronym is invalid_argument', async () => {
    for (const acronym of ['BAC', 'BACKS', 'back', 'B-CK', ''])
      await refused(
        ctx.s,
        ctx.p,
        'create_discipline',
        { name: 'backend-2', display_name: 'Backend 2', icon: 'Server', color: '#111111', acronym },
        'invalid_argument',
      );
  });

  test('a duplicate name is conflict', async () => {
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'backend', display_name: 'Backend again', icon: 'Server', color: '#111111' },
      'conflict',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'devops', display_name: 'Ops', icon: 'Cloud', color: '#111111', acronym: 'OPSS' },
      'conflict',
    );
  });

  test('a bad color is invalid_argument', async () => {
    for (const color of ['red', '#fff', '1e90ff', '#1e90fg', '#1e90ff00', '', 'rgb(0,0,0)'])
      await refused(
        ctx.s,
        ctx.p,
        'create_discipline',
        { name: 'ops', display_name: 'Ops', icon: 'Cloud', color },
        'invalid_argument',
      );
  });

  test('bad names and missing or unknown fields are invalid_argument', async () => {
    for (const name of ['Ops', 'dev ops', 'ops!', '_ops', ''])
      await refused(
        ctx.s,
        ctx.p,
        'create_discipline',
        { name, display_name: 'Ops', icon: 'Cloud', color: '#111111' },
        'invalid_argument',
      );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'ops', display_name: 'Ops', color: '#111111' },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'ops', display_name: 'Ops', icon: 'Cloud' },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'ops', display_name: 'Ops', icon: '  ', color: '#111111' },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'ops', display_name: 'Ops', icon: 'Cloud', color: '#111111', mcp_servers: [] },
      'invalid_argument',
    );
    await refused(
      ctx.s,
      ctx.p,
      'create_discipline',
      { name: 'ops', display_name: 'Ops', icon: 'Cloud', color: '#111111', skills: 'docker' },
      'invalid_argument',
    );
  });
});

// ---- update_discipline -----------------------------------------------------------------------

describe('update_discipline', () => {
  const ctx = useSession();

  test('changes only the given fields', async () => {
    const before = disciplineRow(ctx.p, 'quality')!;
    const r = await ctx.s.ok('update_discipline', {
      name: 'quality',
      color: '#00ff00',
      skills: ['vitest', 'playwright'],
      conventions: '- One assert per behaviour',
    });
    assert.deepEqual([...r.changed].sort(), ['color', 'conventions', 'skills']);
    const d = disciplineRow(ctx.p, 'quality')!;
    assert.equal(d.color, '#00ff00');
    assert.deepEqual(jsonArray(d.skills, 'skills'), ['vitest', 'playwright']);
    assert.equal(d.conventions, '- One assert per behaviour');
    for (const c of ['display_name', 'acronym', 'icon', 'system_prompt', 'mcp_servers', 'mcp_tool_overrides'])
      assert.equal(d[c], before[c], c);
    assert.equal(r.discipline.color, '#00ff00');
  });

  test('text fields can be set and skills replaced whole', async () => {
    await ctx.s.ok('update_discipline', {
      name: 'documentation',
      display_name: 'Docs',
      icon: 'Book',
      system_prompt: 'You write user docs.',
      skills: [],
    });
    const d = disciplineRow(ctx.p, 'documentation')!;
    assert.equal(d.display_name, 'Docs');
    assert.equal(d.icon, 'Book');
    assert.equal(d.system_prompt, 'You write user docs.');
    assert.deepEqual(jsonArray(d.skills, 'skills'), []);
  });

  test('a bad color is invalid_argument; unknown discipline is not_found', async () => {
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'quality', color: 'green' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'quality', color: '#0f0' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'devops', color: '#000000' }, 'not_found');
    assert.equal(disciplineRow(ctx.p, 'quality')!.color, '#00ff00');
  });

  test('no fields and unknown fields are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'quality' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'quality', acronym: 'QLTY' }, 'invalid_argument');
    await refused(
      ctx.s,
      ctx.p,
      'update_discipline',
      { name: 'quality', mcp_tool_overrides: { additional_disabled: [] } },
      'invalid_argument',
    );
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'quality', display_name: '' }, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'update_discipline', { color: '#000000' }, 'invalid_argument');
  });
});

// ---- delete_discipline -----------------------------------------------------------------------

describe('delete_discipline', () => {
  const ctx = useSession();

  test('refused with conflict while tasks reference it', async () => {
    const e = await refused(ctx.s, ctx.p, 'delete_discipline', { name: 'backend' }, 'conflict');
    assert.equal(e.details?.tasks, 4);
    for (const name of ['frontend', 'quality', 'documentation'])
      await refused(ctx.s, ctx.p, 'delete_discipline', { name }, 'conflict');
  });

  test('an unreferenced discipline is deleted; comments naming it keep their text', async () => {
    await ctx.s.ok('create_discipline', { name: 'ops', display_name: 'Ops', icon: 'Cloud', color: '#123456' });
    const c = await ctx.s.ok('add_task_comment', { task_id: 5, body: 'Backups first.', discipline: 'ops' });
    const r = await ctx.s.ok('delete_discipline', { name: 'ops' });
    assert.deepEqual(r, { deleted: 'ops' });
    assert.equal(disciplineRow(ctx.p, 'ops'), undefined);
    assert.equal(rows(ctx.p, 'SELECT count(*) AS n FROM disciplines')[0]!.n, 4);
    const comment = rows(ctx.p, 'SELECT * FROM task_comments WHERE id = ?', c.comment.id)[0]!;
    assert.equal(comment.body, 'Backups first.');
    assert.equal(comment.discipline, null, "Ralph's ON DELETE SET NULL");
  });

  test('a discipline whose tasks are gone can be deleted', async () => {
    await ctx.s.ok('delete_task', { id: 8 }); // the only documentation task
    await ctx.s.ok('delete_discipline', { name: 'documentation' });
    assert.equal(disciplineRow(ctx.p, 'documentation'), undefined);
  });

  test('unknown discipline is not_found; bad arguments are invalid_argument', async () => {
    await refused(ctx.s, ctx.p, 'delete_discipline', { name: 'ops' }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_discipline', { name: 'devops' }, 'not_found');
    await refused(ctx.s, ctx.p, 'delete_discipline', {}, 'invalid_argument');
    await refused(ctx.s, ctx.p, 'delete_discipline', { name: 'backend', force: true }, 'invalid_argument');
  });
});

// ---- scope: a discipline session -------------------------------------------------------------

describe('update_discipline in a discuss session (--discipline frontend)', () => {
  const ctx = useSession(['--recipe', 'discuss', '--discipline', 'frontend']);

  test('its own discipline can be changed', async () => {
    await ctx.s.ok('update_discipline', { name: 'frontend', conventions: '- Components in src/ui/, one per file' });
    assert.equal(disciplineRow(ctx.p, 'frontend')!.conventions, '- Components in src/ui/, one per file');
  });

  test('another discipline is out_of_scope', async () => {
    await refused(ctx.s, ctx.p, 'update_discipline', { name: 'backend', conventions: 'x' }, 'out_of_scope');
  });
});
