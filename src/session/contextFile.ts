import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { StartupError } from '../domain/errors.js';
import { TOOL_NAMES } from '../registry/registry.js';
import type { SessionRequest } from './plan.js';
import { unknownNames } from '../registry/enabled.js';

/**
 * The fields of SPEC-070's context.json, which Ralph writes as an alternative to the flags. Flags beside
 * it must agree with it, and anything malformed fails closed, naming the file and the field.
 */
const FIELDS = ['session_id', 'recipe', 'discipline', 'feature', 'task_id', 'disabled_tools'] as const;

/** `text`: the file's contents when the caller has read them already (the project's own context file). */
export function mergeContextFile(path: string, flags: SessionRequest, text?: string): SessionRequest {
  const file = resolve(path);
  let doc: unknown;
  const source = text ?? readContextText(file);
  try {
    doc = JSON.parse(source);
  } catch (err) {
    throw new StartupError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new StartupError(`${file}: must be a JSON object with ${FIELDS.join(', ')}`);
  const o = doc as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (unknown.length)
    throw new StartupError(
      `${file}: unknown field(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}; allowed: ${FIELDS.join(', ')}`,
    );

  const str = (k: string): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || v === '')
      throw new StartupError(`${file}: field "${k}" must be a non-empty string or null`);
    return v;
  };
  // A context without a recipe would serve the full suite: never from a file Ralph wrote for an agent.
  if (typeof o.recipe !== 'string' || o.recipe === '')
    throw new StartupError(`${file}: field "recipe" is required (a recipe name)`);
  const taskId = o.task_id;
  if (
    taskId !== undefined &&
    taskId !== null &&
    !(typeof taskId === 'number' && Number.isSafeInteger(taskId) && taskId > 0)
  ) {
    throw new StartupError(`${file}: field "task_id" must be a positive integer or null`);
  }
  const disabled = o.disabled_tools ?? [];
  if (!Array.isArray(disabled) || !disabled.every((t): t is string => typeof t === 'string')) {
    throw new StartupError(`${file}: field "disabled_tools" must be an array of tool names`);
  }
  const unknownTools = unknownNames(TOOL_NAMES, disabled);
  if (unknownTools.length)
    throw new StartupError(`${file}: field "disabled_tools" names unknown tool(s): ${unknownTools.join(', ')}`);

  const agree = <T>(flag: string, fromFlag: T | undefined, field: string, fromFile: T | undefined): T | undefined => {
    if (fromFlag !== undefined && fromFile !== undefined && String(fromFlag) !== String(fromFile)) {
      throw new StartupError(
        `--${flag} ${String(fromFlag)} disagrees with ${file}: field "${field}" is ${JSON.stringify(fromFile)}`,
      );
    }
    return fromFlag ?? fromFile;
  };
  return {
    recipe: agree('recipe', flags.recipe, 'recipe', str('recipe')),
    discipline: agree('discipline', flags.discipline, 'discipline', str('discipline')),
    task: agree(
      'task',
      flags.task === undefined ? undefined : String(flags.task),
      'task_id',
      taskId === undefined || taskId === null ? undefined : String(taskId),
    ),
    sessionId: agree('session-id', flags.sessionId, 'session_id', str('session_id')),
    feature: str('feature'),
    extraDisabled: disabled,
    contextFile: file,
    // How long a claim lasts is the launch's (the file has no field for it).
    leaseSeconds: flags.leaseSeconds,
    // The launch's own tool flags have no field here: they narrow whatever the file describes.
    readOnly: flags.readOnly,
    tools: flags.tools,
    excludeTools: flags.excludeTools,
  };
}

/** A context file is a few hundred bytes; anything past this is not one. */
export const MAX_CONTEXT_BYTES = 64 * 1024;

/**
 * The file's text, read without blocking on what is not a regular file (a FIFO would stall the
 * launch) and never more than MAX_CONTEXT_BYTES.
 */
function readContextText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StartupError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `cannot open (${code ?? String(err)})`}`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new StartupError(`${file}: not a regular file`);
    if (st.size > MAX_CONTEXT_BYTES)
      throw new StartupError(`${file}: ${st.size} bytes; a context file is at most ${MAX_CONTEXT_BYTES}`);
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, st.size, 0);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}
