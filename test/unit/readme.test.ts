import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/env.js';

const readme = readFileSync(join(REPO, 'README.md'), 'utf8');

test('the README is a front page: at most 220 lines, linking every page under docs/', () => {
  assert.ok(readme.split('\n').length <= 220, `README.md has ${readme.split('\n').length} lines`);
  const pages = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
  assert.deepEqual(
    pages.filter((page) => !readme.includes(`](docs/${page}`)),
    [],
    'docs pages the README does not link',
  );
});

// The package is not on the registry: `npx ralph-mcp` outside an install runs whatever owns the name there.
test('no launch in the README runs a bare `npx ralph-mcp`', () => {
  assert.deepEqual(readme.match(/npx (-y )?ralph-mcp\b(?!` outside an install)/g) ?? [], []);
});
