import { realpathSync, existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { invalid } from '../errors.js';

/**
 * Checks a path an agent gives (a context file, a knowledge path) and returns it in canonical form:
 * relative to the project root, '/'-separated, no '.' segments.
 *
 * Refused: absolute paths, '~', '..' segments, NUL bytes, backslashes (Windows separators), percent-
 * encoded characters (a URL-encoded '..' must not sneak through), and paths whose nearest existing
 * ancestor resolves (through symlinks) outside the project. Paths that do not exist yet are allowed:
 * a task may name a file it is about to create.
 */
export function checkProjectPath(projectRoot: string, input: string, field = 'path'): string {
  const why = lexicalProblem(input);
  if (why) throw invalid(`${field} ${JSON.stringify(input)} is not allowed: ${why}. Use a path relative to the project root, e.g. "src/app.ts".`);
  const canonical = canonicalPath(input);
  if (canonical === '') throw invalid(`${field} must name a file or folder inside the project, not the root itself`);
  if (escapesThroughSymlink(projectRoot, canonical)) {
    throw invalid(`${field} ${JSON.stringify(input)} resolves outside the project through a symbolic link`);
  }
  return canonical;
}

/** '/'-separated, without empty or '.' segments: "./src//a.ts" → "src/a.ts". Purely lexical. */
export const canonicalPath = (p: string): string =>
  p
    .split('/')
    .filter((seg) => seg !== '' && seg !== '.')
    .join('/');

function lexicalProblem(p: string): string | undefined {
  if (p.includes('\0')) return 'it contains a NUL byte';
  if (p.includes('\\')) return "it uses '\\' (use '/' as the separator)";
  if (/%[0-9a-fA-F]{2}/.test(p)) return 'it contains percent-encoded characters';
  if (p.startsWith('~')) return "it starts with '~'";
  if (isAbsolute(p) || /^[a-zA-Z]:/.test(p)) return 'it is absolute';
  if (p.split('/').includes('..')) return "it contains '..'";
  return undefined;
}

function escapesThroughSymlink(projectRoot: string, rel: string): boolean {
  let root: string;
  try {
    root = realpathSync(projectRoot);
  } catch {
    return false; // the project root itself was checked at startup
  }
  let probe = join(projectRoot, ...rel.split('/'));
  while (!existsSync(probe)) {
    const parent = dirname(probe);
    if (parent === probe) return false;
    probe = parent;
  }
  const real = realpathSync(probe);
  const r = relative(root, real);
  return r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r);
}
