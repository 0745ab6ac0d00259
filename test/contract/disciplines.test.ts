import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACRONYM_RE, jsonArray } from '../helpers/assertions.js';
import { query } from '../helpers/project.js';
import { counts, ralphComments, ralphDiscipline } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';
import { refused } from './support.js';

/**
 * A discipline as stored: Ralph's own read plus SPEC-070's overrides from wherever the generation keeps
 * them. On legacy it also checks that skills and mcp_servers are JSON-array text, which Ralph's read
 * (an empty list for anything unreadable) cannot tell from NULL or junk.
 */
function stored(s: InProcSession, name: string) {
  const d = ralphDiscipline(s.project.dbPath, name);
  if (d === undefined) return undefined;
  if (s.store.generation === 'normalized') {
    const sql = 'SELECT mcp_tool_overrides AS o FROM ralph_mcp_discipline_overrides WHERE discipline = ?';
    return { ...d, mcp_tool_overrides: query(s.project, sql, name)[0]?.o ?? null };
  }
  const raw = query<any>(s.project, 'SELECT * FROM disciplines WHERE name = ?', name)[0];
  assert.deepEqual(
    [jsonArray(raw.skills, 'skills'), jsonArray(raw.mcp_servers, 'mcp_servers')],
    [d.skills, d.mcp_servers],
  );
  return { ...d, mcp_tool_overrides: raw.mcp_tool_overrides };
}

const pick = (o: any, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
/** `actual` has exactly these values for these keys (and may have others). */
const assertFields = (actual: any, expected: Record<string, unknown>) =>
  assert.deepEqual(pick(actual, Object.keys(expected)), expected);

/** The sample's disciplines, in the order they were inserted, and a valid new one to vary. */
const SEEDED = ['frontend', 'backend', 'quality', 'documentation'];
const OPS = { name: 'ops', display_name: 'Ops', icon: 'Cloud', color: '#111111' };

/** Disciplines, and SPEC-070's overrides wherever a generation keeps them. */
contract('disciplines', (env) => {
  test('list_disciplines in insertion order and get_discipline in full, as Ralph reads them', async () => {
    const s = await env.open();
    const LISTED = ['name', 'display_name', 'acronym', 'icon', 'color', 'description'];
    assert.deepEqual(
      (await s.ok('list_disciplines', {})).disciplines,
      SEEDED.map((n) => pick(stored(s, n), LISTED)),
    );
    assertFields((await s.ok('get_discipline', { name: 'backend' })).discipline, {
      name: 'backend',
      display_name: 'Backend',
      acronym: 'BACK',
      icon: stored(s, 'backend')!.icon,
      color: '#ea7805',
      system_prompt: 'You own the API and the database.',
      skills: ['node', 'sqlite'],
      conventions: '- Handlers stay thin',
      mcp_servers: [],
      mcp_tool_overrides: null,
    });
    assert.equal((await s.ok('get_discipline', { name: 'quality' })).discipline.conventions, null);
    const [missing] = await refused(s, 'not_found', 'get_discipline', { name: 'devops' });
    assert.match(missing!.message, /backend/, 'the message lists existing disciplines');
    await refused(s, 'invalid_argument', 'get_discipline', {}, { name: null });
    await refused(s, 'invalid_argument', 'list_disciplines', { all: true });
  });

  test('create_discipline: every field as Ralph reads it; refusals change nothing', async () => {
    const s = await env.open();
    const texts = { system_prompt: 'You run CI and deploys.', conventions: '- Pin every action by SHA' };
    const devops = { ...OPS, name: 'devops', display_name: 'DevOps', color: '#1E90ff', acronym: 'DVOP', ...texts };
    const skills = ['docker', 'github-actions'];
    const r = await s.ok('create_discipline', { ...devops, skills });
    assert.deepEqual([r.discipline.acronym, r.discipline.skills], ['DVOP', ['docker', 'github-actions']]);
    assertFields(stored(s, 'devops'), { ...devops, skills, mcp_servers: [], mcp_tool_overrides: null });
    // Names and acronyms are unique, the seeded ones and the one just made alike.
    const taken = ['BACK', 'DVOP'].map((acronym) => ({ ...OPS, name: 'backend-2', acronym }));
    await refused(
      s,
      'conflict',
      'create_discipline',
      ...taken,
      { ...OPS, name: 'backend' },
      { ...OPS, name: 'devops', acronym: 'OPSS' },
    );
    await refused(
      s,
      'invalid_argument',
      'create_discipline',
      ...['BAC', 'BACKS', 'back', 'B-CK', ''].map((acronym) => ({ ...OPS, acronym })),
      ...['red', '#fff', '1e90ff', '#1e90fg', '#1e90ff00', '', 'rgb(0,0,0)'].map((color) => ({ ...OPS, color })),
      ...['Ops', 'dev ops', 'ops!', '_ops', ''].map((name) => ({ ...OPS, name })),
      pick(OPS, ['name', 'display_name', 'color']),
      pick(OPS, ['name', 'display_name', 'icon']),
      { ...OPS, icon: '  ' },
      { ...OPS, stack_id: 1 },
      // MCP servers as `ralph-mcp config` reads them (ralphPrompts.test has the rest).
      { ...OPS, mcp_servers: [{ name: 'ralph', command: 'npx' }] },
      { ...OPS, mcp_servers: 'npx server' },
      { ...OPS, skills: 'docker' },
    );
  });

  test('create_discipline derives a unique acronym of 4 [A-Z0-9] when none is given', async () => {
    const s = await env.open();
    const a = (await s.ok('create_discipline', { ...OPS, name: 'design', display_name: 'Design' })).discipline;
    assert.match(a.acronym, ACRONYM_RE);
    const design = stored(s, 'design')!;
    assert.deepEqual([design.acronym, design.skills, design.system_prompt], [a.acronym, [], null]);
    // "Frontend" derives FRNT, which the seeded frontend discipline already holds.
    const b = (await s.ok('create_discipline', { ...OPS, name: 'frontend-2', display_name: 'Frontend' })).discipline;
    const c = (await s.ok('create_discipline', { ...OPS, name: 'frontend-3', display_name: 'Frontend' })).discipline;
    for (const x of [b, c]) assert.match(x.acronym, ACRONYM_RE);
    assert.notEqual(b.acronym, 'FRNT');
    assert.notEqual(c.acronym, b.acronym);
    const all = query<{ acronym: string }>(s.project, 'SELECT acronym FROM disciplines').map((x) => x.acronym);
    assert.equal(new Set(all).size, all.length, `acronyms are unique: ${all.join(', ')}`);
    for (const x of all) assert.match(x, ACRONYM_RE);
  });

  test('update_discipline changes only the given fields; skills are replaced whole', async () => {
    const s = await env.open();
    const before = stored(s, 'quality')!;
    const changes = { color: '#00ff00', skills: ['vitest', 'playwright'], conventions: '- One assert per behaviour' };
    const r = await s.ok('update_discipline', { name: 'quality', ...changes });
    assert.deepEqual([...r.changed].sort(), ['color', 'conventions', 'skills']);
    assert.equal(r.discipline.color, '#00ff00');
    assert.deepEqual(stored(s, 'quality'), { ...before, ...changes });
    const texts = { display_name: 'Docs', icon: 'Book', system_prompt: 'You write user docs.', skills: [] };
    await s.ok('update_discipline', { name: 'documentation', ...texts });
    assertFields(stored(s, 'documentation'), texts);
    const colors = ['red', 'green', '#0f0'].map((color) => ({ name: 'quality', color }));
    await refused(s, 'invalid_argument', 'update_discipline', ...colors);
    await refused(s, 'not_found', 'update_discipline', { name: 'devops', color: '#000000' });
    assert.equal(stored(s, 'quality')!.color, '#00ff00');
    // No field to change, a field update may not change (acronym, overrides), a blank one, or no name.
    await refused(
      s,
      'invalid_argument',
      'update_discipline',
      { name: 'quality' },
      { name: 'quality', acronym: 'QLTY' },
      { name: 'quality', mcp_tool_overrides: { additional_disabled: [] } },
      { name: 'quality', display_name: '' },
      { color: '#000000' },
    );
  });

  test('delete_discipline: refused while tasks use it; comments naming it keep their text', async () => {
    const s = await env.open();
    const [busy] = await refused(s, 'conflict', 'delete_discipline', { name: 'backend' });
    assert.equal(busy!.details?.tasks, 4);
    const used = ['frontend', 'quality', 'documentation'].map((name) => ({ name }));
    await refused(s, 'conflict', 'delete_discipline', ...used);
    await s.ok('create_discipline', { ...OPS, color: '#123456' });
    const c = (await s.ok('add_task_comment', { task_id: 5, body: 'Backups first.', discipline: 'ops' })).comment;
    assert.deepEqual(await s.ok('delete_discipline', { name: 'ops' }), { deleted: 'ops' });
    assert.equal(stored(s, 'ops'), undefined);
    assert.equal(counts(s.project.dbPath).disciplines, 4);
    const comment = ralphComments(s.project.dbPath, 5).find((x) => x.id === c.id)!;
    assert.equal(comment.body, 'Backups first.');
    // Legacy Ralph's foreign key is ON DELETE SET NULL; Ralph's normalized signal has no discipline column.
    if (comment.generation === 'legacy') assert.equal(comment.discipline, null);
    await s.ok('delete_task', { id: 8 }); // the only documentation task
    await s.ok('delete_discipline', { name: 'documentation' });
    assert.equal(stored(s, 'documentation'), undefined);
    await refused(s, 'not_found', 'delete_discipline', { name: 'ops' }, { name: 'devops' });
    await refused(s, 'invalid_argument', 'delete_discipline', {}, { name: 'backend', force: true });
  });

  test('a discipline session (discuss --discipline frontend) may change its own discipline only', async () => {
    const s = await env.open({ recipe: 'discuss', discipline: 'frontend' });
    await s.ok('update_discipline', { name: 'frontend', conventions: '- Components in src/ui/, one per file' });
    assert.equal(stored(s, 'frontend')!.conventions, '- Components in src/ui/, one per file');
    await refused(s, 'out_of_scope', 'update_discipline', { name: 'backend', conventions: 'x' });
  });

  test("overrides set with the CLI command path remove tools from the discipline's sessions", async () => {
    const p = env.sample();
    const { overrides } = await import('../../src/cli/overrides.js');
    const report = overrides({ project: p.root, discipline: 'quality', disable: ['create_task'] });
    assert.match(report, /additional_disabled = create_task/);
    const s = await env.open({ recipe: 'yap', discipline: 'quality' }, p);
    const names = await s.toolNames();
    assert.ok(!names.includes('create_task') && names.includes('list_tasks'), names.join());
    const full = await env.open({}, p);
    assert.deepEqual((await full.ok('get_discipline', { name: 'quality' })).discipline.mcp_tool_overrides, {
      additional_disabled: ['create_task'],
    });
    // Cleared again: none left, and the discipline's sessions have the recipe's whole set.
    overrides({ project: p.root, discipline: 'quality', clear: true });
    const after = await env.open({ recipe: 'yap', discipline: 'quality' }, p);
    assert.ok((await after.toolNames()).includes('create_task'));
  });
});
