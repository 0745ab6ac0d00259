import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { updateGolden } from './env.js';

/**
 * JSON as a person reads it in a diff: an object or array that fits on its line (120 columns) stays
 * on it, anything longer is spread one member per line. The value is exactly the value: key order is
 * kept, so the minified bytes of a snapshot are the bytes the server sends.
 */
export function formatJson(value: unknown, indent = '', lead = 0): string {
  const flat = JSON.stringify(value);
  if (value === null || typeof value !== 'object' || indent.length + lead + flat.length <= 120) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) {
    const items = value.map((v) => JSON.stringify(v));
    return packed(items, inner, indent, '[]');
  }
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + formatJson(v, inner)).join(',\n')}\n${indent}]`;
  const members = Object.entries(value).map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return key + formatJson(v, inner, key.length);
  });
  return packed(members, inner, indent, '{}');
}

/**
 * Items that each fit on a line (plain values, a schema's short properties) share lines, as many as
 * fit; an item of several lines stands alone.
 */
function packed(items: string[], inner: string, indent: string, brackets: '[]' | '{}'): string {
  const lines: string[] = [];
  let line = '';
  const flush = () => {
    if (line) lines.push(inner + line);
    line = '';
  };
  for (const v of items) {
    if (v.includes('\n')) {
      flush();
      lines.push(inner + v);
    } else {
      if (line && inner.length + line.length + v.length + 2 > 120) flush();
      line = line ? `${line}, ${v}` : v;
    }
  }
  flush();
  return `${brackets[0]}\n${lines.join(',\n')}\n${indent}${brackets[1]}`;
}

/**
 * Compares `value` with its snapshot file; UPDATE_GOLDEN=1 (`npm run test:update-golden`, never under
 * CI) writes it instead, to be reviewed as a diff.
 */
export function matchesSnapshot(file: string, value: unknown, what: string): void {
  const actual = `${formatJson(value)}\n`;
  if (updateGolden()) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.ok(existsSync(file), `missing snapshot ${file}: run npm run test:update-golden`);
  assert.equal(actual, readFileSync(file, 'utf8'), `${what} changed: review, then npm run test:update-golden`);
}
