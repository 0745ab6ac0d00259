import { closeSync, fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import { ToolError } from './errors.js';
import { errnoWords, FS_ERRORS } from './fileErrors.js';
import { labelName } from './quote.js';
import { openInProject, readTailInProject, UnsafeFileError } from './safeOpen.js';

/**
 * `.ralph/learnings.txt` and `.ralph/progress.txt`: plain text that Ralph and agents append to. Each entry
 * (`## <RFC 3339 UTC> · <who>`, the text, a blank line) goes out in ONE write(2) with O_APPEND, so two
 * sessions appending at once never interleave inside an entry.
 */

/** An entry's cap, so that one entry is one write. */
export const MAX_ENTRY_CHARS = 8000;
/** What one read returns at most; a larger file is read from its end, where the newest entries are. */
export const MAX_READ_BYTES = 256 * 1024;
const HEADER_RE = /^## \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/;

/**
 * `who` names the writer (recipe, discipline), `taskId` its task. A discipline may be any string, so each
 * name that is not plain is JSON-quoted (labelName): none can put a line break or a fake part in the header.
 */
export function formatEntry(
  text: string,
  stamp: string,
  who: string | readonly string[],
  taskId: number | null = null,
): string {
  // A line in the text that looks like a header would split the entry when read back: indent it.
  const body = text
    .replace(/\r\n?/g, '\n')
    .trim()
    .split('\n')
    .map((l) => (HEADER_RE.test(l) ? ` ${l}` : l))
    .join('\n');
  const parts = (typeof who === 'string' ? [who] : who).map(labelName);
  if (taskId !== null) parts.push(`task #${taskId}`);
  const label = parts.join(' · ');
  return `## ${stamp} · ${label}\n${body}\n\n`;
}

/**
 * A file written by hand may not end in a newline, and our header must start a line. A concurrent append
 * can make this add one needless blank line: cosmetic, never inside an entry.
 */
function needsLeadingNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** A refusal of safeOpen as the tool error agents get: io_error, naming the file and what is wrong. */
export function toStateFileError(err: unknown, verb: 'append to' | 'read', file: string): ToolError {
  if (err instanceof UnsafeFileError) {
    return new ToolError(
      'io_error',
      `could not ${verb} ${file}: it ${err.problem}; nothing was ${verb === 'read' ? 'read' : 'written'}`,
      { file, reason: err.reason },
    );
  }
  if (err instanceof ToolError) return err;
  const nothing = `nothing was ${verb === 'read' ? 'read' : 'written'}`;
  const code = (err as { code?: unknown }).code;
  // The system's errno in words with the next step, as the launch and doctor say it; not its raw message,
  // which names the absolute path.
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    const next = FS_ERRORS[code]?.next;
    return new ToolError(
      'io_error',
      `could not ${verb} ${file}: ${errnoWords(code, (err as Error).message)} (${code}); ${nothing}${next ? `; ${next}` : ''}`,
      { file, errno: code },
    );
  }
  return new ToolError('io_error', `could not ${verb} ${file}: ${(err as Error).message}; ${nothing}`);
}

export function appendEntry(root: string, file: string, entry: string): number {
  const buf = Buffer.from(entry, 'utf8');
  let fd: number | undefined;
  try {
    try {
      fd = openInProject(root, file, 'append')!.fd;
    } catch (err) {
      throw toStateFileError(err, 'append to', file);
    }
    const out = needsLeadingNewline(fd) ? Buffer.concat([Buffer.from('\n'), buf]) : buf;
    const written = writeSync(fd, out, 0, out.length);
    if (written !== out.length) {
      // The disk filled up mid-entry (a short write carries no errno): take our bytes back off the end,
      // unless another process has appended after them, so that the file never keeps half an entry.
      const removed = written === 0 || takeBack(fd, out.subarray(0, written));
      throw new Error(
        `the disk is probably full: only ${written} of ${out.length} bytes fit; ${removed ? 'nothing was written' : 'part of the entry may remain at the end of the file'}`,
      );
    }
    return out.length;
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOSPC' || e.code === 'EDQUOT' ? `the disk is full (${e.code}); nothing was written` : e.message;
    throw new ToolError('io_error', `could not append to ${file}: ${why}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Cuts `part` off the end of the file if the file ends with exactly those bytes; true if it did. */
function takeBack(fd: number, part: Buffer): boolean {
  const { size } = fstatSync(fd);
  if (size < part.length) return false;
  const tail = Buffer.alloc(part.length);
  readSync(fd, tail, 0, part.length, size - part.length);
  if (!tail.equals(part)) return false;
  ftruncateSync(fd, size - part.length);
  return true;
}

export interface ReadResult {
  content: string;
  /** Entries in the file; when it was cut (truncated), entries in the part that was read. */
  entry_count: number;
  returned_entries: number;
  /** Present when the file is larger than MAX_READ_BYTES: only its end was read. */
  truncated?: true;
  /** With truncated: the bytes at the start of the file that were not returned. */
  omitted_bytes?: number;
}

export function readEntries(root: string, file: string, last?: number, maxBytes = MAX_READ_BYTES): ReadResult {
  let tail: ReturnType<typeof readTailInProject>;
  try {
    tail = readTailInProject(root, file, maxBytes);
  } catch (err) {
    throw toStateFileError(err, 'read', file);
  }
  if (!tail) return { content: '', entry_count: 0, returned_entries: 0 };
  let text = tail.text;
  let omitted = tail.omittedBytes;
  if (omitted > 0) {
    // The cut fell somewhere inside an entry: start at the first whole one (or, if the part read holds
    // no header at all, at its first whole line).
    const lines = text.split(/(?<=\n)/);
    let at = lines.findIndex((l) => HEADER_RE.test(l));
    if (at < 0) at = lines.length > 1 ? 1 : 0;
    const dropped = lines.slice(0, at).join('');
    text = text.slice(dropped.length);
    omitted += Buffer.byteLength(dropped, 'utf8');
  }
  const cut = omitted > 0 ? { truncated: true as const, omitted_bytes: omitted } : {};
  const entries = splitEntries(text);
  if (last === undefined || last >= entries.length) {
    return { content: text, entry_count: entries.length, returned_entries: entries.length, ...cut };
  }
  const picked = entries.slice(entries.length - last);
  return { content: picked.join(''), entry_count: entries.length, returned_entries: picked.length, ...cut };
}

/**
 * Splits a state file into entries. Text before the first header (e.g. what Ralph or a person wrote
 * by hand) counts as one entry of its own.
 */
export function splitEntries(text: string): string[] {
  const entries: string[] = [];
  let current = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (HEADER_RE.test(line) && current.trim() !== '') {
      entries.push(current);
      current = '';
    }
    current += line;
  }
  if (current.trim() !== '') entries.push(current);
  return entries;
}
