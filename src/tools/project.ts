import { z } from 'zod';
import { TASK_STATUSES } from '../domain/rules.js';
import { once, READ, defineTool } from '../toolkit/tool.js';
import { problemsAnswer, problemsShape } from './dependencies.js';

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
  description:
    'Task completion stats: totals, counts by status, done/total per feature and per discipline; dependency problems.',
  input: () => z.strictObject({}),
  output: () =>
    z.object({
      total: z.number().int(),
      done: z.number().int(),
      percent_done: z.number(),
      by_status: z.record(z.string(), z.number().int()),
      by_feature: z.array(Group()),
      by_discipline: z.array(Group()),
      // Only when there are any: a review is where a cycle or a done task waiting on unfinished work shows.
      dependency_problems: problemsShape().optional(),
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
    const problems = problemsAnswer(store);
    const any = problems.cycles.length + problems.dangling.length + problems.self.length + problems.done_waiting.length;
    return {
      total,
      done,
      percent_done: total === 0 ? 0 : Math.round((1000 * done) / total) / 10,
      by_status,
      by_feature: [...features.values()],
      by_discipline: [...disciplines.values()],
      ...(any > 0 ? { dependency_problems: problems } : {}),
    };
  },
});

export const PROJECT_TOOLS = [getProjectInfo, getProjectProgress];
