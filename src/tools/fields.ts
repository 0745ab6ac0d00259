import { once } from '../toolkit/tool.js';
import { z } from 'zod';
import { PRIORITIES, TASK_STATUSES } from '../domain/rules.js';

/**
 * Input field builders shared by the tools. Every free-text field and list has a size limit, so a runaway
 * model cannot bloat Ralph's database or the next agent's prompt; descriptions are short, since each one
 * is paid for in every session that sees the tool.
 */
export const LIMITS = {
  name: 64,
  title: 200,
  shortText: 200,
  text: 20_000,
  longText: 50_000,
  listItems: 100,
  listItem: 1_000,
  path: 500,
} as const;

export const text = (max: number = LIMITS.text) => z.string().trim().min(1).max(max);
export const optText = (max: number = LIMITS.text) => z.string().max(max);
export const strList = (max: number = LIMITS.listItems) =>
  z.array(z.string().trim().min(1).max(LIMITS.listItem)).max(max);
export const pathList = (desc = 'Project-relative paths') =>
  z.array(z.string().min(1).max(LIMITS.path)).max(100).describe(desc);
/**
 * Lists that also take one string (orSemicolons, the task lists' `fields`): the fuzzers
 * (scripts/stress/fuzz.ts) describe each as its list, which a string is not a wrong type for.
 */
export const LISTS_ALSO_STRING = new WeakSet<z.ZodType>();
/** A list that also takes one string of items separated by `separator`: split, trimmed, empty parts dropped. */
export const alsoOneString = <T extends z.ZodTypeAny>(list: T, separator: string) => {
  const schema = z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(separator)
            .map((s) => s.trim())
            .filter((s) => s !== '')
        : v,
    list,
  );
  LISTS_ALSO_STRING.add(schema);
  return schema;
};

/**
 * A list that also takes the form Ralph's generated bash tools took, one string of items separated by
 * ';'. The listing shows only the list, the documented form.
 */
export const orSemicolons = <T extends z.ZodTypeAny>(list: T) => alsoOneString(list, ';');
export const taskId = (desc?: string) => {
  const s = z.number().int().positive();
  return desc ? s.describe(desc) : s;
};
export const name = (desc: string) => z.string().min(1).max(LIMITS.name).describe(desc);
export const status = once(() => z.enum(TASK_STATUSES));
export const priority = once(() => z.enum(PRIORITIES));
export const acronym = once(() => z.string().describe('4 chars A-Z/0-9; default from display_name'));
