/**
 * The reference's tables, written from the code (scripts/docs.mjs puts them in place and checks them):
 * the tools from the registry, the command line from its table (src/cli/commandTable.ts), each argument's
 * limit from the tools' input schemas, and what a request may cost from src/domain/limits.ts.
 */
import { COMMANDS, type CommandFlag } from '../src/cli/commandTable.js';
import { SESSION_FLAGS } from '../src/cli/flags.js';
import { MAX_LEARNING_CHARS } from '../src/domain/learnings.js';
import { PAGES, REQUEST_BOUNDS } from '../src/domain/limits.js';
import { RECIPES } from '../src/registry/recipes.js';
import { REGISTRY } from '../src/registry/registry.js';
import { LIMITS } from '../src/tools/fields.js';
import { limitRows, type LimitRow } from './stress/fuzz.js';

const cell = (s: string) => s.replaceAll('|', '\\|');
const row = (...cells: string[]) => `| ${cells.join(' | ')} |`;
const table = (head: string[], rows: string[]) =>
  [row(...head), `|${head.map(() => '---').join('|')}|`, ...rows].join('\n');
const n = (x: number) => x.toLocaleString('en-US');
const bytes = (x: number) =>
  x >= 1024 * 1024 && x % (1024 * 1024) === 0
    ? `${n(x / 1024 / 1024)} MiB`
    : x >= 1024 && x % 1024 === 0
      ? `${n(x / 1024)} KiB`
      : `${n(x)} bytes`;

// ---- tools (docs/tools.md) -----------------------------------------------------------------

const kind = (a: { readOnlyHint?: boolean; destructiveHint?: boolean }) =>
  a.readOnlyHint ? 'read' : a.destructiveHint ? 'destructive' : 'write';

/** docs/tools.md: every tool with its kind, the recipes that allow it and what it does. */
export function toolsPage(): string {
  const rows = REGISTRY.map((t) => {
    const recipes = RECIPES.filter((r) => r.allow.includes(t.name)).map((r) =>
      r.narrow?.[t.name] ? `${r.name}*` : r.name,
    );
    // A tool some databases lack (its `generations`) says so beside its recipes.
    const only = t.generations ? ` (${t.generations.join(', ')} schema only)` : '';
    const allowed = `${recipes.join(', ') || '—'}${only}`;
    return row(`\`${t.name}\``, t.category, kind(t.annotations), allowed, cell(t.description));
  });
  const narrowed = RECIPES.flatMap((r) =>
    Object.entries(r.narrow ?? {}).map(
      ([tool, fields]) => `\`${tool}\` in ${r.name} accepts only ${fields.join(', ')}`,
    ),
  );
  return [
    '# Tools',
    '',
    'Generated from the registry by `npm run docs`; do not edit by hand. Every tool, in `tools/list` order.',
    'A session sees the tools its recipe allows, less what its discipline removes; without a recipe, all of them.',
    '"(normalized schema only)": the tool is served only on a database of Ralph\'s normalized schema.',
    '',
    table(['tool', 'category', 'kind', 'recipes', 'what it does'], rows),
    '',
    ...(narrowed.length ? [`\\* narrowed in that recipe: ${narrowed.join('; ')}.`, ''] : []),
  ].join('\n');
}

// ---- the command line ----------------------------------------------------------------------

type Named = [name: string, spec: CommandFlag];
const COMMAND_NAMES = Object.keys(COMMANDS) as (keyof typeof COMMANDS)[];

/** How a flag is written: its value as choices, N for a number, the flag's name in capitals for text. */
function usage([name, f]: Named): string {
  if (f.type === 'boolean') return f.default === true ? `--no-${name}` : `--${name}`;
  const value = f.choices ? f.choices.join('|') : f.type === 'number' ? 'N' : name.toUpperCase().replaceAll('-', '_');
  return `--${name} ${value}`;
}

function synopsis(command: keyof typeof COMMANDS): string {
  const { session, flags } = COMMANDS[command];
  const parts = Object.entries(flags).map((f: Named) => (f[1].demandOption ? usage(f) : `[${usage(f)}]`));
  const name = command === 'serve' ? '[serve]' : command;
  return `ralph-mcp ${[name, ...(session ? ['[session flags]'] : []), ...parts].join(' ')}`;
}

/**
 * What a flag does, with what yargs knows beside the description: its default (unless the description
 * names it; a boolean's shows in how it is written), that it is required, that it may be repeated.
 */
function flagText(f: CommandFlag): string {
  const says = (word: string) => f.describe.includes(word);
  const given =
    f.default === undefined || f.type === 'boolean' || says('default') ? '' : ` (default \`${String(f.default)}\`)`;
  const required = f.demandOption ? ' (required)' : '';
  const repeated = f.array && !says('repeated') ? ' (may be repeated)' : '';
  return cell(`${f.describe}${given}${required}${repeated}`);
}

/**
 * The command-line reference: each command with its synopsis, then every flag once with the commands
 * that take it (the same flag of the table shared by several commands is one row).
 */
export function cliTables(): string {
  const commands = COMMAND_NAMES.map((c) => row(`\`${cell(synopsis(c))}\``, cell(COMMANDS[c].describe)));
  const uses = new Map<CommandFlag, { name: string; commands: string[] }>();
  const take = (command: string, name: string, spec: CommandFlag) => {
    const seen = uses.get(spec) ?? { name, commands: [] };
    seen.commands.push(command);
    uses.set(spec, seen);
  };
  const sessionCommands = COMMAND_NAMES.filter((c) => COMMANDS[c].session);
  for (const [name, spec] of Object.entries(SESSION_FLAGS)) for (const c of sessionCommands) take(c, name, spec);
  for (const c of COMMAND_NAMES) for (const [name, spec] of Object.entries(COMMANDS[c].flags)) take(c, name, spec);
  const flags = [...uses].map(([spec, { name, commands }]) =>
    row(`\`${cell(usage([name, spec]))}\``, commands.join(', '), flagText(spec)),
  );
  return [
    table(['command', 'what it does'], commands),
    '',
    `The session flags (${sessionCommands.join(', ')}) are the first ${Object.keys(SESSION_FLAGS).length} below.`,
    '',
    table(['flag', 'of', 'what it does'], flags),
  ].join('\n');
}

// ---- limits --------------------------------------------------------------------------------

/** A field as the table names it: its key ('tasks[].title' → 'title'), a record's keys and values in words. */
const leafOf = (field: string) => field.replace(/^.*\./, '');
const fieldName = (leaf: string) =>
  leaf.endsWith('{key}')
    ? `\`${leaf.slice(0, -5)}\` keys`
    : leaf.endsWith('{}')
      ? `\`${leaf.slice(0, -2)}\` values`
      : `\`${leaf}\``;

/**
 * Fields grouped by their limit. A field many tools share with one limit is named alone; one of a single
 * tool, or whose limit differs by tool, is named with the tools that give it this one.
 */
function groupedFields(rows: LimitRow[]): Map<number, string[]> {
  const limitsOf = new Map<string, Set<number>>();
  const toolsOf = new Map<string, Set<string>>();
  for (const r of rows) {
    limitsOf.set(leafOf(r.field), (limitsOf.get(leafOf(r.field)) ?? new Set()).add(r.max));
    toolsOf.set(leafOf(r.field), (toolsOf.get(leafOf(r.field)) ?? new Set()).add(r.tool));
  }
  const alone = (leaf: string) => limitsOf.get(leaf)!.size === 1 && toolsOf.get(leaf)!.size > 1;
  const groups = new Map<number, Map<string, string[]>>();
  for (const r of rows) {
    const leaves = groups.get(r.max) ?? new Map<string, string[]>();
    const tools = leaves.get(leafOf(r.field)) ?? [];
    if (!tools.includes(r.tool)) tools.push(r.tool);
    groups.set(r.max, leaves.set(leafOf(r.field), tools));
  }
  return new Map(
    [...groups]
      .sort(([a], [b]) => a - b)
      .map(([max, leaves]) => [
        max,
        [...leaves].map(([leaf, tools]) =>
          alone(leaf) ? fieldName(leaf) : `${fieldName(leaf)} (${tools.join(', ')})`,
        ),
      ]),
  );
}

/** Each argument's size limit, as the tools' input schemas enforce it. */
export function limitsTables(): string {
  const rows = limitRows({ records: true });
  const sizes = (kind: 'characters' | 'items') =>
    [...groupedFields(rows.filter((r) => r.kind === kind))].map(([max, fields]) =>
      row(`${n(max)} ${kind}`, fields.join(', ')),
    );
  const ranges = new Map<string, { leaf: string; tools: string[]; range: string; page: string }>();
  for (const r of rows.filter((x) => x.kind === 'range')) {
    const page = (PAGES as Record<string, { default: number }>)[`${r.tool}.${leafOf(r.field)}`]?.default;
    const range = `${n(r.min!)}–${n(r.max)}`;
    const key = `${leafOf(r.field)} ${range} ${page}`;
    const seen = ranges.get(key) ?? {
      leaf: leafOf(r.field),
      tools: [],
      range,
      page: page === undefined ? '—' : n(page),
    };
    seen.tools.push(r.tool);
    ranges.set(key, seen);
  }
  const numbers = [...ranges.values()].map((r) => row(`\`${r.leaf}\``, r.tools.join(', '), r.range, r.page));
  return [
    table(['limit', 'fields'], [...sizes('characters'), ...sizes('items')]),
    '',
    table(['number', 'of', 'range', 'default'], numbers),
  ].join('\n');
}

/** What one request may cost, from src/domain/limits.ts (and the list limit spawn_subtasks applies). */
export function boundsTable(): string {
  const { search, brief, audit } = REQUEST_BOUNDS;
  const comments = PAGES['get_task.comment_limit'].default;
  const rows = [
    [
      'one message',
      `a JSON-RPC message (one line on stdio or a socket) of at most ${bytes(REQUEST_BOUNDS.messageBytes)}`,
    ],
    [
      '`search_tasks`',
      `${search.words} distinct words searched (case-folded; the rest returned as \`ignored_words\`); words of ` +
        `${search.prefixMin}+ letters also match as prefixes when whole words do not fill the page, shorter ones ` +
        `only whole; the newest ${n(search.window)} matches ranked (title matches ranked first, in a window of ` +
        `their own); ${search.budgetMs} ms a call, past which it stops with \`invalid_argument\` ` +
        '("use fewer, longer or rarer words")',
    ],
    [
      'stored lists read',
      `${n(REQUEST_BOUNDS.storedListItems)} items of each list of a task (\`get_task\`, \`list_tasks\`, ` +
        '`task_brief`), `truncated_lists` naming the lists cut; a task with more than ' +
        `${n(REQUEST_BOUNDS.storedListItems)} dependencies is not offered by \`claim_next_task\``,
    ],
    [
      'ready counts',
      `\`claim_next_task\`'s \`ready_remaining\` and \`list_tasks\`' \`total\` with \`ready\` count up to ` +
        `${n(REQUEST_BOUNDS.readyCount)} (\`total_capped\` says so)`,
    ],
    [
      'comments',
      `\`get_task\`: the ${comments} most recent (\`comment_limit\`), \`comment_count\`, and ` +
        '`older_comments_before` for the page before (`comments_before`); `task_brief`: ' +
        `${n(brief.comments)} characters of the task's comments and ${n(brief.dependencyComments)} of its ` +
        `dependencies', each body cut at ${n(brief.body)}, saying how many it left out`,
    ],
    [
      'feature learnings',
      `a learning's \`text\` is kept to ${n(MAX_LEARNING_CHARS)} characters after sanitising ` +
        '([docs/knowledge.md](knowledge.md))',
    ],
    [
      'lists the server builds',
      '`spawn_subtasks` refuses (`conflict`, naming the task) to give a subtask or a dependent more than ' +
        `${n(LIMITS.listItems)} dependencies`,
    ],
    [
      'audit rows',
      `tool name ${bytes(audit.toolBytes)}, arguments ${bytes(audit.argsBytes)} (UTF-8, marked ` +
        '`…(truncated, N bytes)`): five calls of 1 MB name + 1 MB arguments grow the database < 64 KiB ' +
        '(`test/e2e/auditBounds.test.ts`)',
    ],
  ];
  return table(
    ['bound', 'what'],
    rows.map(([what, text]) => row(what!, cell(text!))),
  );
}
