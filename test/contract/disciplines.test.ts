import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ralphDiscipline } from '../helpers/ralphRead.js';
import { contract } from './harness.js';
import { unchanged } from './support.js';

/** Disciplines, and SPEC-070's overrides wherever a generation keeps them. */
contract('disciplines', (env) => {
  test('list, get, create with skills, update, delete', async () => {
    const s = await env.open();
    assert.deepEqual(
      (await s.ok('list_disciplines', {})).disciplines.map((d: any) => d.name),
      ['frontend', 'backend', 'quality', 'documentation'],
    );
    const backend = (await s.ok('get_discipline', { name: 'backend' })).discipline;
    assert.deepEqual(
      [backend.skills, backend.system_prompt, backend.mcp_tool_overrides],
      [['node', 'sqlite'], 'You own the API and the database.', null],
    );
    await s.ok('create_discipline', {
      name: 'design',
      display_name: 'Design',
      icon: 'Palette',
      color: '#ff00aa',
      skills: ['figma'],
    });
    assert.deepEqual(ralphDiscipline(s.project.dbPath, 'design')!.skills, ['figma']);
    await s.ok('update_discipline', { name: 'design', skills: ['figma', 'tokens'], conventions: '- 8px grid' });
    const d = ralphDiscipline(s.project.dbPath, 'design')!;
    assert.deepEqual([d.skills, d.conventions], [['figma', 'tokens'], '- 8px grid']);
    await unchanged(s, async () => {
      assert.equal(
        (await s.fail('create_discipline', { name: 'design', display_name: 'x', icon: 'x', color: '#000000' })).code,
        'conflict',
      );
      assert.equal((await s.fail('update_discipline', { name: 'design', color: 'red' })).code, 'invalid_argument');
      assert.equal((await s.fail('delete_discipline', { name: 'backend' })).code, 'conflict');
    });
    await s.ok('delete_discipline', { name: 'design' });
    assert.equal(ralphDiscipline(s.project.dbPath, 'design'), undefined);
  });

  test("overrides set with the CLI command path remove tools from the discipline's sessions", async () => {
    const p = env.sample();
    const { overrides } = await import('../../src/cli/overrides.js');
    const report = overrides({ project: p.root, discipline: 'quality', disable: ['create_task'] });
    assert.match(report, /additional_disabled = create_task/);
    const s = await env.open({ recipe: 'yap', discipline: 'quality' }, p);
    assert.ok(!(await s.toolNames()).includes('create_task'));
    assert.ok((await s.toolNames()).includes('list_tasks'));
    const full = await env.open({}, p);
    assert.deepEqual((await full.ok('get_discipline', { name: 'quality' })).discipline.mcp_tool_overrides, {
      additional_disabled: ['create_task'],
    });
    // Cleared again: none left, and the discipline's sessions have the recipe's whole set.
    overrides({ project: p.root, discipline: 'quality', clear: true });
    assert.ok(
      (await (await env.open({ recipe: 'yap', discipline: 'quality' }, p)).toolNames()).includes('create_task'),
    );
  });
});
