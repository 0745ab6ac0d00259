import { z } from 'zod';
import { conflict, notFound } from '../domain/errors.js';
import type { Template } from '../store/records.js';
import type { RalphStore } from '../store/store.js';
import { CREATE, READ, defineTool } from '../toolkit/tool.js';
import { LIMITS, taskId } from './fields.js';
import { requireFeature, requireTask } from './lookups.js';
import { TaskOut } from './shapes.js';

/**
 * Task templates (Ralph's routine tasks): only Ralph's normalized schema has them, so these tools exist
 * only on that generation. A task made from one shares the template's details until it is first changed.
 */

/** The templates a refusal names, so that the agent can correct itself. */
const ACTIVE_SHOWN = 20;
function activeIds(store: RalphStore): string {
  const ids = store.templates
    .listTemplates()
    .filter((t) => t.active)
    .map((t) => t.id);
  if (ids.length === 0) return 'there are no active templates';
  return `active template ids: ${ids.slice(0, ACTIVE_SHOWN).join(', ')}${ids.length > ACTIVE_SHOWN ? ', …' : ''}`;
}

/** The template a task may be made from: it exists and is active (Ralph offers only active ones). */
function requireActiveTemplate(store: RalphStore, id: number): Template {
  const t = store.templates.getTemplate(id);
  if (!t) throw notFound('template', id, activeIds(store));
  if (!t.active) {
    const why = `template ${id} (${JSON.stringify(t.title)}) is inactive: no task is made from it`;
    throw conflict(`${why}; ${activeIds(store)}`, { template_id: id });
  }
  return t;
}

const TemplateOut = () =>
  z.object({
    id: z.number().int(),
    title: z.string(),
    discipline: z.string(),
    priority: z.string().nullable(),
    description: z.string().nullable(),
    active: z.boolean(),
    /** How many tasks were made from it. */
    pulled_count: z.number().int(),
  });

export const listTemplates = defineTool({
  name: 'list_templates',
  title: 'List task templates',
  category: 'tasks',
  description: 'Task templates (routine tasks), active first, each with how many tasks were made from it.',
  input: () => z.strictObject({}),
  output: () => z.object({ templates: z.array(TemplateOut()) }),
  annotations: READ,
  generations: ['normalized'],
  handler(_args, ctx) {
    return {
      templates: ctx.store.templates.listTemplates().map((t) => ({
        id: t.id,
        title: t.title,
        discipline: t.discipline,
        priority: t.priority,
        description: t.description,
        active: t.active,
        pulled_count: t.pulled,
      })),
    };
  },
});

export const createTaskFromTemplate = defineTool({
  name: 'create_task_from_template',
  title: 'Create task from template',
  category: 'tasks',
  description: "A new pending task in a feature, made from an active template's details.",
  input: () =>
    z.strictObject({
      template_id: taskId(),
      feature: z.string().max(LIMITS.name).describe('Existing feature name'),
    }),
  output: () => z.object({ task: TaskOut() }),
  annotations: CREATE,
  generations: ['normalized'],
  handler(args, ctx) {
    const { store } = ctx;
    const template = requireActiveTemplate(store, args.template_id);
    const feature = requireFeature(store, args.feature);
    const id = store.templates.createFromTemplate(template.id, feature);
    return { task: requireTask(store, id) };
  },
});

export const TEMPLATE_TOOLS = [listTemplates, createTaskFromTemplate];
