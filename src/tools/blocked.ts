import { z } from 'zod';
import { invalid } from '../domain/errors.js';
import { BLOCKED_BOUNDS, type BlockedGroup } from '../store/blocked.js';
import { once, READ, defineTool } from '../toolkit/tool.js';
import { LIMITS } from './fields.js';
import { problemsAnswer, problemsShape } from './dependencies.js';
import { requireFeature } from './lookups.js';
import { PAGES } from '../domain/limits.js';

/**
 * The blocked view (beads' `blocked`): the tasks held up and what holds each, a page at a time. Two
 * groups, never mixed (store/blocked.ts, docs/blocked.md): `held` — someone has to act (status blocked,
 * an open blocking question, a session that ended on `blocked`); `waiting` — pending tasks that only wait
 * for their dependencies to be done. Every list and text in a row is bounded (BLOCKED_BOUNDS).
 */

const PAGE = PAGES['blocked_tasks.limit'];

const BlockedOut = once(() =>
  z.object({
    id: z.number().int(),
    title: z.string(),
    status: z.string(),
    priority: z.string().nullable(),
    feature: z.string(),
    discipline: z.string(),
    reason: z.string().optional(),
    upstream: z.number().int().optional(),
    waits_on: z.array(z.object({ id: z.number().int(), status: z.string() })).optional(),
    waits_on_more: z.number().int().optional(),
    questions: z.array(z.object({ id: z.number().int(), question: z.string() })).optional(),
    questions_more: z.number().int().optional(),
  }),
);

/** A page cursor names its group and the last id: a cursor of the other group is refused, not misread. */
const CURSOR = /^([hw])(\d{1,15})$/;
function afterOf(group: BlockedGroup, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = CURSOR.exec(cursor);
  if (!m || m[1] !== group[0])
    throw invalid('cursor is not one this tool returned for this list; omit it to start from the first page');
  return Number(m[2]);
}

export const blockedTasks = defineTool({
  name: 'blocked_tasks',
  title: 'Blocked tasks',
  category: 'tasks',
  description: 'What holds tasks up: blocked status or signal, open blocking questions, unfinished dependencies.',
  input: () =>
    z.strictObject({
      waiting: z.boolean().optional().describe('Instead: pending, waiting on dependencies'),
      graph: z.boolean().optional().describe('Also check the whole graph for cycles, missing deps'),
      feature: z.string().max(LIMITS.name).optional(),
      limit: z.number().int().min(1).max(PAGE.max).optional().describe(`1-${PAGE.max} (default ${PAGE.default})`),
      cursor: z.string().max(32).optional().describe("A page's next_cursor"),
    }),
  output: () =>
    z.object({
      tasks: z.array(BlockedOut()),
      total: z.number().int(),
      total_capped: z.literal(true).optional(),
      next_cursor: z.string().nullable(),
      // Asked for (graph): what keeps tasks waiting for good (a cycle, a missing or self dependency).
      dependency_problems: problemsShape().optional(),
    }),
  annotations: READ,
  handler(args, { store }) {
    const group: BlockedGroup = args.waiting === true ? 'waiting' : 'held';
    const feature = args.feature !== undefined ? requireFeature(store, args.feature) : undefined;
    const limit = args.limit ?? PAGE.default;
    const rows = store.tasks.blockedTasks(group, feature, afterOf(group, args.cursor), limit + 1);
    const page = rows.slice(0, limit);
    // Counting walks the group (a dependency check per pending task when waiting): it stops at the cap.
    const total = store.tasks.countBlocked(group, feature, BLOCKED_BOUNDS.countMax);
    // Only when asked: the check reads every edge (~0.4 s at 100,000 tasks), too much for every listing.
    const problems = args.graph === true ? problemsAnswer(store) : undefined;
    return {
      tasks: page,
      total: Math.min(total, BLOCKED_BOUNDS.countMax),
      ...(total > BLOCKED_BOUNDS.countMax ? { total_capped: true as const } : {}),
      next_cursor: rows.length > limit ? `${group[0]}${page[page.length - 1]!.id}` : null,
      ...(problems !== undefined ? { dependency_problems: problems } : {}),
    };
  },
});

export const BLOCKED_TOOLS = [blockedTasks];
