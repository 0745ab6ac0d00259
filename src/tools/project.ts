import { z } from 'zod';
import { TASK_STATUSES } from '../domain/rules.js';
import { READ, defineTool } from '../registry/types.js';

export const getProjectInfo = defineTool({
  name: 'get_project_info',
  title: 'Get project info',
  category: 'project',
  description: 'Get the project title, description and creation date.',
  input: z.strictObject({}),
  output: z.object({ title: z.string(), description: z.string().nullable(), created: z.string().nullable(), schema_version: z.string() }),
  annotations: READ,
  handler(_args, { db }) {
    const r = db.get<{ project_title: string; project_description: string | null; project_created: string | null; schema_version: string }>(
      'SELECT project_title, project_description, project_created, schema_version FROM metadata WHERE id = 1',
    );
    return {
      title: r?.project_title ?? '',
      description: r?.project_description ?? null,
      created: r?.project_created ?? null,
      schema_version: r?.schema_version ?? '1.0',
    };
  },
});

const Group = z.object({ name: z.string(), done: z.number().int(), total: z.number().int() });

export const getProjectProgress = defineTool({
  name: 'get_project_progress',
  title: 'Get project progress',
  category: 'project',
  description: 'Task completion stats: totals, counts by status, done/total per feature and per discipline.',
  input: z.strictObject({}),
  output: z.object({
    total: z.number().int(),
    done: z.number().int(),
    percent_done: z.number(),
    by_status: z.record(z.string(), z.number().int()),
    by_feature: z.array(Group),
    by_discipline: z.array(Group),
  }),
  annotations: READ,
  handler(_args, { db }) {
    const by_status: Record<string, number> = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0]));
    let total = 0;
    for (const r of db.all<{ status: string; n: number }>('SELECT status, count(*) AS n FROM tasks GROUP BY status')) {
      by_status[r.status] = r.n;
      total += r.n;
    }
    const done = by_status.done ?? 0;
    // Every feature/discipline is listed, also those without tasks (0/0), so the report is complete.
    const group = (sql: string) => db.all<{ name: string; done: number; total: number }>(sql).map((r) => ({ name: r.name, done: r.done, total: r.total }));
    return {
      total,
      done,
      percent_done: total === 0 ? 0 : Math.round((1000 * done) / total) / 10,
      by_status,
      by_feature: group(
        `SELECT f.name AS name, count(t.id) AS total, count(CASE WHEN t.status = 'done' THEN 1 END) AS done
         FROM features f LEFT JOIN tasks t ON t.feature = f.name GROUP BY f.name ORDER BY f.name`,
      ),
      by_discipline: group(
        `SELECT d.name AS name, count(t.id) AS total, count(CASE WHEN t.status = 'done' THEN 1 END) AS done
         FROM disciplines d LEFT JOIN tasks t ON t.discipline = d.name GROUP BY d.name ORDER BY d.name`,
      ),
    };
  },
});

export const PROJECT_TOOLS = [getProjectInfo, getProjectProgress];
