import { z } from 'zod';
import { NameHintOut, similarNamesOf } from './duplicates.js';
import { HEX_COLOR_RE } from '../domain/rules.js';
import { conflict, invalid } from '../domain/errors.js';
import { once, CREATE, DELETE, READ, REPLACE, defineTool } from '../toolkit/tool.js';
import { checkAcronym, checkMcpServers, checkNewName, freeAcronym } from './validate.js';
import { LIMITS, acronym, optText, strList, text } from './fields.js';
import { requireDiscipline, requireDisciplineRecord } from './lookups.js';
import { DisciplineOut, DisciplineRowOut } from './shapes.js';

// No description: `name` on a *_discipline tool says it (every session pays for the bytes).
const disciplineName = once(() => z.string().max(LIMITS.name));
const color = once(() => z.string().max(7).describe('#RRGGBB'));
const icon = once(() => z.string().trim().min(1).max(LIMITS.name).describe('Icon name, e.g. Code'));
/** Ralph's McpServerConfig: what it launches beside the discipline's task sessions. */
const mcpServers = once(() =>
  z
    .array(
      z.strictObject({
        name: z.string().max(LIMITS.name),
        command: z.string().max(LIMITS.path),
        args: z.array(z.string().max(LIMITS.listItem)).max(LIMITS.listItems).optional(),
        env: z.record(z.string().max(LIMITS.name), z.string().max(LIMITS.listItem)).optional(),
      }),
    )
    .max(LIMITS.listItems),
);

function checkColor(value: string): string {
  if (!HEX_COLOR_RE.test(value)) throw invalid(`color ${JSON.stringify(value)} must be a hex color like "#1e90ff"`);
  return value;
}

export const listDisciplines = defineTool({
  name: 'list_disciplines',
  title: 'List disciplines',
  category: 'disciplines',
  description: 'List all disciplines (name, display name, acronym, icon, color, description).',
  input: () => z.strictObject({}),
  output: () => z.object({ disciplines: z.array(DisciplineRowOut()) }),
  annotations: READ,
  handler(_args, { store }) {
    return { disciplines: store.disciplines.listDisciplines() };
  },
});

export const getDiscipline = defineTool({
  name: 'get_discipline',
  title: 'Get discipline',
  category: 'disciplines',
  description: 'Get a discipline in full: system prompt, skills, conventions, MCP servers.',
  input: () => z.strictObject({ name: disciplineName() }),
  output: () => z.object({ discipline: DisciplineOut() }),
  annotations: READ,
  handler({ name }, { store }) {
    return { discipline: requireDisciplineRecord(store, name) };
  },
});

export const createDiscipline = defineTool({
  name: 'create_discipline',
  title: 'Create discipline',
  category: 'disciplines',
  description: 'Create a discipline (an agent persona). name is its key (lower-case, e.g. "frontend").',
  input: () =>
    z.strictObject({
      name: disciplineName(),
      display_name: text(LIMITS.title),
      icon: icon(),
      color: color(),
      acronym: acronym().optional(),
      system_prompt: optText().optional(),
      skills: strList().optional(),
      conventions: optText().optional(),
      mcp_servers: mcpServers().optional(),
    }),
  output: () => z.object({ discipline: DisciplineOut(), possible_duplicates: z.array(NameHintOut()) }),
  annotations: CREATE,
  handler(args, { store }) {
    checkNewName('discipline', args.name);
    checkColor(args.color);
    const servers = args.mcp_servers !== undefined ? checkMcpServers(args.mcp_servers) : undefined;
    const existing = store.disciplines.disciplineName(args.name);
    if (existing !== undefined)
      throw conflict(`discipline ${existing} already exists; choose another name, or change the existing one instead`);
    const possible_duplicates = similarNamesOf(store, 'disciplines', args.name);
    const acr =
      args.acronym !== undefined
        ? checkAcronym(store, 'disciplines', args.acronym, null)
        : freeAcronym(store, 'disciplines', args.display_name);
    store.disciplines.createDiscipline({
      name: args.name,
      display_name: args.display_name,
      acronym: acr,
      icon: args.icon,
      color: args.color,
      system_prompt: args.system_prompt ?? null,
      skills: args.skills ?? [],
      conventions: args.conventions ?? null,
    });
    if (servers !== undefined) store.disciplines.updateDiscipline(args.name, { mcp_servers: servers });
    return { discipline: requireDisciplineRecord(store, args.name), possible_duplicates };
  },
});

const DISCIPLINE_UPDATABLE = [
  'display_name',
  'icon',
  'color',
  'system_prompt',
  'skills',
  'conventions',
  'mcp_servers',
] as const;
export const updateDiscipline = defineTool({
  name: 'update_discipline',
  title: 'Update discipline',
  category: 'disciplines',
  description: 'Change only the given fields of a discipline (lists are replaced whole).',
  input: () =>
    z.strictObject({
      name: disciplineName(),
      display_name: text(LIMITS.title).optional(),
      icon: icon().optional(),
      color: color().optional(),
      system_prompt: optText().optional(),
      skills: strList().optional(),
      conventions: optText().optional(),
      mcp_servers: mcpServers().optional(),
    }),
  output: () => z.object({ discipline: DisciplineOut(), changed: z.array(z.string()) }),
  annotations: REPLACE,
  disciplineTarget: { arg: 'name' },
  handler(args, { store }) {
    const given = DISCIPLINE_UPDATABLE.filter((f) => args[f] !== undefined);
    if (given.length === 0) throw invalid(`nothing to update: give at least one of ${DISCIPLINE_UPDATABLE.join(', ')}`);
    if (args.color !== undefined) checkColor(args.color);
    const name = requireDiscipline(store, args.name);
    const { name: _name, mcp_servers, ...fields } = args;
    const changes = mcp_servers !== undefined ? { ...fields, mcp_servers: checkMcpServers(mcp_servers) } : fields;
    store.disciplines.updateDiscipline(name, changes);
    return { discipline: requireDisciplineRecord(store, name), changed: given };
  },
});

export const deleteDiscipline = defineTool({
  name: 'delete_discipline',
  title: 'Delete discipline',
  category: 'disciplines',
  description: 'Delete a discipline. Refused while tasks reference it.',
  input: () => z.strictObject({ name: disciplineName() }),
  output: () => z.object({ deleted: z.string() }),
  annotations: DELETE,
  disciplineTarget: { arg: 'name' },
  handler(args, { store }) {
    const name = requireDiscipline(store, args.name);
    const { tasks, templates } = store.disciplines.disciplineUsage(name);
    if (tasks > 0)
      throw conflict(`discipline ${name} cannot be deleted: ${tasks} task(s) belong to it; move or delete them first`, {
        tasks,
      });
    if (templates > 0)
      throw conflict(
        `discipline ${name} cannot be deleted: ${templates} task template(s) use it; retire them in Ralph first`,
        { templates },
      );
    store.disciplines.deleteDiscipline(name);
    return { deleted: name };
  },
});

export const DISCIPLINE_TOOLS = [listDisciplines, getDiscipline, createDiscipline, updateDiscipline, deleteDiscipline];
