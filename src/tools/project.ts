import { z } from 'zod';
import { TASK_STATUSES } from '../domain/rules.js';
import { READY_COUNT_MAX } from '../store/ready.js';
import { once, READ, defineTool } from '../toolkit/tool.js';

export const getProjectInfo = defineTool({
  name: 'get_project_info',
  title: 'Get project info',
  category: 'project',
  description: 'Get the project title, description and creation date.',
  input: () => z.strictObject({}),
  output: () =>
    z.object({
      title: z.string(),
      description: z.string().nullable(),
      created: z.string().nullable(),
      schema_version: z.string(),
    }),
  annotations: READ,
  handler(_args, { store }) {
    return store.project.projectInfo();
  },
});

const Group = once(() => z.object({ name: z.string(), done: z.number().int(), total: z.number().int() }));

export const getProjectProgress = defineTool({
  name: 'get_project_progress',
  title: 'Get project progress',
  category: 'project',
  description: 'Task counts by status, done/total per feature and discipline, ready count, median lead time.',
  input: () => z.strictObject({}),
  output: () =>
    z.object({
      total: z.number().int(),
      done: z.number().int(),
      percent_done: z.number(),
      by_status: z.record(z.string(), z.number().int()),
      by_feature: z.array(Group()),
      by_discipline: z.array(Group()),
      ready: z.number().int(),
      ready_capped: z.literal(true).optional(),
      lead_time: z.object({
        median_days: z.number().nullable(),
        tasks: z.number().int(),
        skipped: z.number().int(),
      }),
    }),
  annotations: READ,
  handler(_args, { store }) {
    const by_status: Record<string, number> = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0]));
    // Every feature/discipline is listed, also those without tasks (0/0), so the report is complete.
    const features = new Map(store.features.featureNames(-1).map((name) => [name, { name, done: 0, total: 0 }]));
    const disciplines = new Map(store.disciplines.disciplineNames().map((name) => [name, { name, done: 0, total: 0 }]));
    let total = 0;
    for (const r of store.tasks.progressGroups()) {
      total += r.n;
      by_status[r.status] = (by_status[r.status] ?? 0) + r.n;
      for (const g of [features.get(r.feature), disciplines.get(r.discipline)]) {
        if (!g) continue; // a task naming a feature/discipline row that is gone: counted in total only
        g.total += r.n;
        if (r.status === 'done') g.done += r.n;
      }
    }
    const done = by_status.done ?? 0;
    // A claim's own condition (store/ready.ts), counted as far as a claim counts it: each pending task
    // costs a dependency check.
    const ready = store.tasks.countTasks({ ready: true }, READY_COUNT_MAX);
    return {
      total,
      done,
      percent_done: total === 0 ? 0 : Math.round((1000 * done) / total) / 10,
      by_status,
      by_feature: [...features.values()],
      by_discipline: [...disciplines.values()],
      ready: Math.min(ready, READY_COUNT_MAX),
      ...(ready > READY_COUNT_MAX ? { ready_capped: true as const } : {}),
      lead_time: store.tasks.leadTime(),
    };
  },
});

export const PROJECT_TOOLS = [getProjectInfo, getProjectProgress];
