import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { invalid } from './errors.js';

/**
 * Checks a path an agent gives (a context file, a knowledge path) and returns it canonical: relative to
 * the project root, '/'-separated, no '.' segments. A path that does not exist yet is allowed (a task may
 * name a file it is about to create); one refused in its NFKC form is refused too, since a tool that
 * normalises Unicode before opening would follow fullwidth '．．／' out of the project.
 */
export function checkProjectPath(projectRoot: string, input: string, field = 'path'): string {
  let why = lexicalProblem(input);
  if (!why) {
    const nfkc = input.normalize('NFKC');
    const looksLike = nfkc !== input ? lexicalProblem(nfkc) : undefined;
    if (looksLike)
      why = `it uses Unicode look-alike characters that normalise to ${JSON.stringify(nfkc)} (${looksLike})`;
  }
  if (why)
    throw invalid(
      `${field} ${JSON.stringify(input)} is not allowed: ${why}. Use a path relative to the project root, e.g. "src/app.ts".`,
    );
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
  if (/[\x00-\x1f\x7f]/.test(p)) return 'it contains control characters (newlines, tabs, …)';
  if (p !== p.trim()) return 'it starts or ends with white space';
  if (p.includes('\\')) return "it uses '\\' (use '/' as the separator)";
  if (/%[0-9a-fA-F]{2}/.test(p)) return 'it contains percent-encoded characters';
  if (p.startsWith('~')) return "it starts with '~'";
  if (isAbsolute(p) || /^[a-zA-Z]:/.test(p)) return 'it is absolute';
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p)) return 'it starts like a URL (scheme:)';
  if (p.split('/').includes('..')) return "it contains '..'";
  return undefined;
}

const realRoots = new Map<string, string | null>();
function realRoot(projectRoot: string): string | null {
  if (!realRoots.has(projectRoot)) {
    let real: string | null = null;
    try {
      real = realpathSync(projectRoot);
    } catch {
      real = null;
    }
    realRoots.set(projectRoot, real);
  }
  return realRoots.get(projectRoot)!;
}

const inside = (root: string, p: string): boolean => {
  const r = relative(root, p);
  return !(r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r));
};

/**
 * Follows `abs` the way the OS would: up to its nearest entry that exists (lstat, so a dangling link
 * counts as existing), through symlinks (also dangling ones: their target is checked, since it may be
 * created later), and checks where it really lands. Fails closed: anything we cannot resolve escapes.
 */
function landsOutside(root: string, abs: string, hops = 0): boolean {
  if (hops > 40) return true; // a symlink loop
  let probe = abs;
  for (;;) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(probe);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return true;
      const parent = dirname(probe);
      if (parent === probe) return true;
      probe = parent;
      continue;
    }
    if (st.isSymbolicLink()) {
      try {
        return !inside(root, realpathSync(probe));
      } catch {
        return landsOutside(root, resolve(dirname(probe), readlinkSync(probe)), hops + 1);
      }
    }
    try {
      return !inside(root, realpathSync(probe));
    } catch {
      return true;
    }
  }
}

function escapesThroughSymlink(projectRoot: string, rel: string): boolean {
  const root = realRoot(projectRoot);
  if (root === null) return true;
  return landsOutside(root, join(projectRoot, ...rel.split('/')));
}
