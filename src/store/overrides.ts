import { parseJsonObject } from './json.js';
import type { Discipline } from './records.js';

/** SPEC-070's override object as tools show it (a launch reads the stored value strictly instead). */
export function overridesView(raw: unknown): Discipline['mcp_tool_overrides'] {
  const o = parseJsonObject(raw);
  if (!o) return null;
  return {
    additional_disabled: Array.isArray(o.additional_disabled)
      ? o.additional_disabled.filter((x): x is string => typeof x === 'string')
      : [],
  };
}
