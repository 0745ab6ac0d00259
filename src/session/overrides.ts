import { StartupError } from '../domain/errors.js';
import { TOOL_NAMES } from '../registry/registry.js';
import { parseJsonObject } from '../store/json.js';
import { unknownNames } from '../registry/enabled.js';

/** SPEC-070's discipline override object has exactly one key. */
const KEYS = ['additional_disabled'];

/**
 * Parses a discipline's SPEC-070 overrides (the legacy column, or our table on the normalized generation),
 * failing closed on anything malformed: also on any key but additional_disabled, since `disabled_tools`
 * (SPEC-070's prose spelling) would otherwise read as "none".
 */
export function readOverrides(discipline: string, raw: unknown, storage = 'disciplines.mcp_tool_overrides'): string[] {
  // SQL NULL, '' and JSON null all mean "no overrides" (null is what a JSON serializer writes for none).
  if (raw === null || raw === undefined || raw === '' || (typeof raw === 'string' && raw.trim() === 'null')) return [];
  const where = `${storage} of discipline ${JSON.stringify(discipline)}`;
  const obj = parseJsonObject(raw);
  if (!obj) throw new StartupError(`${where} is not a JSON object like {"additional_disabled": ["tool", ...]}`);
  const unknownKeys = Object.keys(obj).filter((k) => !KEYS.includes(k));
  if (unknownKeys.length > 0) {
    throw new StartupError(
      `${where} has unknown key(s) ${unknownKeys.map((k) => JSON.stringify(k.slice(0, 64))).join(', ')}; the only key is "additional_disabled" (a list of tool names)`,
    );
  }
  const list = obj.additional_disabled ?? [];
  if (!Array.isArray(list) || !list.every((x): x is string => typeof x === 'string')) {
    throw new StartupError(`${where}: additional_disabled must be an array of tool names`);
  }
  const unknown = unknownNames(TOOL_NAMES, list);
  if (unknown.length > 0)
    throw new StartupError(
      `${where} names unknown tool(s): ${unknown.join(', ')} (see \`ralph-mcp --help\` for the tool list)`,
    );
  return list;
}
