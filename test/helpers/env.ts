import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (tests run from dist/test/...). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The built artifact every end-to-end test spawns: the esbuild bundle that npm publishes. */
export const CLI = join(REPO, 'dist', 'ralph-mcp.js');
export const GOLDEN_DIR = join(REPO, 'test', 'golden');

/** Ralph's real databases live in ../shared (never copied into this repo); RALPH_FIXTURES overrides. */
export const FIXTURES_DIR = process.env.RALPH_FIXTURES ?? resolve(REPO, '..', 'shared', 'fixtures', 'ralph4days');
export const FIXTURES = ['01-desktop-blank.db', '02-desktop-feature.db', '03-desktop-tasks.db', '04-desktop-dev.db'] as const;
export const fixturesPresent = (): boolean => FIXTURES.every((f) => existsSync(join(FIXTURES_DIR, f)));
export const FIXTURE_SKIP = fixturesPresent() ? false : `fixtures not found in ${FIXTURES_DIR} (set RALPH_FIXTURES); skipping`;

/** The databases Ralph's generator wrote at its head (the normalized generation); RALPH_HEAD_FIXTURES overrides. */
export const HEAD_FIXTURES_DIR = process.env.RALPH_HEAD_FIXTURES ?? resolve(REPO, '..', 'shared', 'fixtures', 'ralph4days-head');
export const HEAD_FIXTURES = ['01-desktop-blank.db', '02-desktop-feature.db', '03-desktop-tasks.db', '04-desktop-dev.db', '05-desktop-templates.db'] as const;
export const HEAD_FIXTURE_SKIP = HEAD_FIXTURES.every((f) => existsSync(join(HEAD_FIXTURES_DIR, f))) ? false : `head fixtures not found in ${HEAD_FIXTURES_DIR} (set RALPH_HEAD_FIXTURES); skipping`;
