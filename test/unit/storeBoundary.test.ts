import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO } from '../helpers/env.js';

/**
 * The storage boundary: all SQL lives in src/store/ (Ralph's tables behind the RalphStore interface,
 * one implementation per schema generation, and our own tables) and src/db/ (the connection: journal
 * mode, foreign keys, busy timeout). Tool handlers, server/, session/, cli/ and the rest hold none, so
 * a second generation cannot be forgotten in some corner. Found by parsing every string and template
 * literal of every other source file.
 */

/** SQL as our code writes it: keywords in capitals (prose like "select the feature from the list" is not SQL). */
const SQL =
  /\b(?:SELECT\s[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(?:TABLE|INDEX|TRIGGER|VIEW)\b|ALTER\s+TABLE\b|DROP\s+(?:TABLE|INDEX)\b|PRAGMA\s+\w+)/;
const BOUNDARY = ['src/store/', 'src/db/'];

/** "file:line: text" for every literal holding SQL in this source text. */
export function sqlLiterals(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      if (SQL.test(n.text))
        found.push(
          `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.text.replace(/\s+/g, ' ').slice(0, 100)}`,
        );
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

test('no SQL outside src/store/ and src/db/', () => {
  const files = readdirSync(join(REPO, 'src'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) =>
      relative(REPO, join(REPO, 'src', f))
        .split('\\')
        .join('/'),
    );
  const outside = files.filter((f) => !BOUNDARY.some((b) => f.startsWith(b)));
  assert.ok(outside.length > 30, `only ${outside.length} files outside the store: the file walk is broken`);
  assert.ok(
    files.some((f) => f.startsWith('src/store/legacy/')) && files.some((f) => f.startsWith('src/store/normalized/')),
    'both generations live in src/store/',
  );
  const offenders = outside.flatMap((f) => sqlLiterals(f, readFileSync(join(REPO, f), 'utf8')));
  assert.deepEqual(offenders, [], 'SQL outside the storage boundary: move it behind RalphStore (src/store/store.ts)');
});

test('the check finds SQL in strings and templates, and passes plain text', () => {
  const probe = [
    "const a = 'SELECT id FROM tasks WHERE id = ?';",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the scanner, not a template
    'const b = `UPDATE runtime_tasks SET status = ${s} WHERE id = ?`;',
    'db.run("INSERT OR IGNORE INTO ralph_mcp_meta (key) VALUES (1)");',
    'const c = `DELETE FROM task_comments WHERE task_id = ?`;',
    "raw.pragma('PRAGMA foreign_keys = ON');",
    "const d = 'select the feature from the list';",
    "const e = 'Update the task, then set its status';",
    "const f = 'create a table of contents';",
  ].join('\n');
  assert.deepEqual(
    sqlLiterals('probe.ts', probe).map((x) => x.split(':')[1]),
    ['1', '2', '3', '4', '5'],
  );
});
