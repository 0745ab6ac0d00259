import { closeSync, constants, fstatSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { ToolError } from '../errors.js';

/**
 * `.ralph/learnings.txt` and `.ralph/progress.txt`: plain text that Ralph and agents append to.
 *
 * An entry is a header line `## <RFC 3339 UTC> · <who>` followed by the text and a blank line.
 * Each entry goes out in ONE write(2) on a file opened with O_APPEND: the kernel positions every such
 * write at the current end of file under the inode lock, so two sessions appending at once never
 * interleave inside an entry. Entries are capped (see MAX_ENTRY_CHARS) so one entry is one write.
 */

export const MAX_ENTRY_CHARS = 8000;
const HEADER_RE = /^## \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/;

export function formatEntry(text: string, stamp: string, who: string): string {
  // A line in the text that looks like a header would split the entry when read back: indent it.
  const body = text
    .replace(/\r\n?/g, '\n')
    .trim()
    .split('\n')
    .map((l) => (HEADER_RE.test(l) ? ` ${l}` : l))
    .join('\n');
  return `## ${stamp} · ${who}\n${body}\n\n`;
}

/**
 * A file written by hand may not end in a newline: our header must still start a line. Under concurrent
 * appends this check can read a byte of another process's write in flight and add one needless blank
 * line before our entry: cosmetic, and never inside an entry (each entry is still one write).
 */
function needsLeadingNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

export function appendEntry(file: string, entry: string): number {
  const buf = Buffer.from(entry, 'utf8');
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o644);
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
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOSPC' || e.code === 'EDQUOT' ? `the disk is full (${e.code}); nothing was written` : e.message;
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
  entry_count: number;
  returned_entries: number;
}

export function readEntries(file: string, last?: number): ReadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { content: '', entry_count: 0, returned_entries: 0 };
    throw new ToolError('io_error', `could not read ${file}: ${(err as Error).message}`);
  }
  const entries = splitEntries(text);
  if (last === undefined || last >= entries.length) {
    return { content: text, entry_count: entries.length, returned_entries: entries.length };
  }
  const tail = entries.slice(entries.length - last);
  return { content: tail.join(''), entry_count: entries.length, returned_entries: tail.length };
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
