import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProject, type Generation } from './datagen.js';
import { table } from './format.js';
import { RpcChild, installExitHooks, killAll, parseResult } from './rpc.js';

/**
 * List shapes (issue 27): what a page of each task list costs the model in each shape, on a generated
 * project. Model-visible is one copy of the result: its text block, the compact JSON of its
 * structuredContent (src/session/toolResult.ts). A client gets that JSON once as text and once as
 * structuredContent, or the structured copy alone (src/server/resultCopies.ts); a model reads one.
 * Part of `npm run bench`; alone, on fresh projects of both generations:
 *
 *   npm run build && node dist/scripts/bench/shapes.js [tasks=10000]
 */

/** A page of 50 where the tool allows it; next_tasks shows at most 20 (its NEXT_MAX). */
const CALLS: { tool: string; args: Record<string, unknown>; example: string[] }[] = [
  { tool: 'list_tasks', args: { limit: 50 }, example: ['brief', 'priority', 'feature'] },
  { tool: 'search_tasks', args: { query: 'session', limit: 50 }, example: ['brief', 'snippet'] },
  { tool: 'next_tasks', args: { limit: 20 }, example: ['brief', 'priority'] },
];
export const PAGE = 50;

export interface ShapeRow {
  config: string;
  generation: Generation;
  tool: string;
  shape: string;
  rows: number;
  /** The text block's bytes (UTF-8): what a model reads of one page. */
  visible_bytes: number;
  /** visible_bytes scaled to a page of PAGE rows (next_tasks' pages are shorter). */
  per_page_bytes: number;
  /** The whole reply line: both copies and the JSON-RPC envelope. */
  reply_bytes: number;
  /** visible_bytes over the row shape's, same page. */
  of_row: number;
}

/** Each tool's page in each shape, over one session of the built server on `dir`. */
export async function listShapes(
  cli: string,
  dir: string,
  config: string,
  generation: Generation,
  env: NodeJS.ProcessEnv,
): Promise<ShapeRow[]> {
  const c = new RpcChild(process.execPath, [cli, '--project', dir, '--log-level', 'warn'], { timeoutMs: 60_000, env });
  const out: ShapeRow[] = [];
  try {
    await c.initialize();
    for (const { tool, args, example } of CALLS) {
      let rowBytes = 0;
      for (const [shape, fields] of [
        ['row (default)', undefined],
        ['brief', ['brief']],
        [`fields ${example.join(',')}`, example],
      ] as const) {
        const r = await c.request('tools/call', { name: tool, arguments: { ...args, ...(fields && { fields }) } });
        if (r.isError) throw new Error(`${tool} ${shape}: ${r.line.slice(0, 300)}`);
        const result = parseResult<{ content: { text: string }[]; structuredContent: Record<string, unknown[]> }>(r);
        const text = result.content[0]!.text;
        if (text !== JSON.stringify(result.structuredContent))
          throw new Error(`${tool}: text is not the structured JSON`);
        const rows = (result.structuredContent.tasks ?? result.structuredContent.results)!.length;
        const visible = Buffer.byteLength(text);
        if (fields === undefined) rowBytes = visible;
        const row = (label: string, bytes: number, reply: number): ShapeRow => ({
          config,
          generation,
          tool,
          shape: label,
          rows,
          visible_bytes: bytes,
          per_page_bytes: rows > 0 ? Math.round((bytes * PAGE) / rows) : bytes,
          reply_bytes: reply,
          of_row: Math.round((bytes / rowBytes) * 1000) / 1000,
        });
        out.push(row(shape, visible, Buffer.byteLength(r.line)));
        // For scale: the same page as whole tasks (get_task's task), the records beads' "brief" is set against.
        if (tool === 'list_tasks' && fields === undefined) {
          const page = result.structuredContent as { tasks: { id: number }[] };
          const full = [];
          for (const t of page.tasks) full.push((await c.ok<{ task: unknown }>('get_task', { id: t.id })).task);
          const bytes = Buffer.byteLength(JSON.stringify({ ...page, tasks: full }));
          out.push(row('(whole tasks, for scale)', bytes, NaN));
        }
      }
    }
  } finally {
    await c.close();
  }
  return out;
}

/** The report's table rows (table() of format.ts). */
export const shapeTable = (rows: ShapeRow[]) =>
  rows.map((x) => [
    x.config,
    x.tool,
    x.shape,
    x.rows,
    x.visible_bytes.toLocaleString('en-US'),
    x.per_page_bytes.toLocaleString('en-US'),
    `${Math.round(x.of_row * 100)}%`,
    Number.isNaN(x.reply_bytes) ? '-' : x.reply_bytes.toLocaleString('en-US'),
  ]);
export const SHAPE_HEADER = ['<config', '<tool', '<shape', 'rows', 'visible B', `B per ${PAGE}`, 'of row', 'reply B'];

async function main() {
  installExitHooks();
  const cli = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'), 'dist', 'ralph-mcp.js');
  const size = Number(process.argv[2] ?? 10_000);
  const rows: ShapeRow[] = [];
  for (const generation of ['legacy', 'normalized'] as const) {
    const dir = mkdtempSync(join(tmpdir(), `ralph-bench-shapes-${generation}-`));
    try {
      generateProject(cli, dir, size, 1000 + size, process.env, generation);
      rows.push(...(await listShapes(cli, dir, `ours-${generation}`, generation, process.env)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`list shapes on ${size.toLocaleString('en-US')} generated tasks (model-visible = the text block)`);
  console.log(table(SHAPE_HEADER, shapeTable(rows)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      killAll();
      process.exit(1);
    },
  );
