import { accessSync, constants, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Db } from '../db/database.js';
import { RUNTIME } from '../db/sqlite.js';
import { errnoWords } from '../domain/fileErrors.js';
import { packageVersion } from '../domain/packageInfo.js';
import { projectPaths } from '../domain/project.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { TOOL_NAMES } from '../registry/registry.js';
import { readOverrides } from '../session/overrides.js';
import { resolveTools } from '../registry/enabled.js';
import { storeFor } from '../store/open/openStore.js';
import { integrityCheck, OWN_SCHEMA_VERSION, schemaReadable, sqliteVersion } from '../store/open/inspect.js';
import {
  RALPH_USER_VERSION,
  generationLabel,
  inspectSchema,
  notRalphMessage,
  ralphTables,
  type SchemaInfo,
} from '../store/schema.js';
import type { RalphStore } from '../store/store.js';
import { DEPENDENCY_LABELS, dependencyChecks } from './doctorDependencies.js';
import { databaseLocation, projectCheck, stateFileCheck, writableForSessions } from './doctorFiles.js';

/**
 * ✓ passed, ✗ failed, – not run (what it needs failed first): a check that could not run never shows ✓.
 * ! a warning: worth a person's look, but nothing is broken by it (the exit code stays 0).
 */
type Outcome = 'ok' | 'fail' | 'skip' | 'warn';
interface Check {
  outcome: Outcome;
  label: string;
  detail: string;
}
const MARK: Record<Outcome, string> = { ok: '✓', fail: '✗', skip: '–', warn: '!' };

/**
 * `ralph-mcp doctor`: every check on one line, ✓ or ✗ with what was found, – for one it could not run,
 * ! a warning.
 * Reads only (the database is opened query-only, so that it also leaves no -wal or -shm file it made
 * behind); exits non-zero if any check fails.
 */
export function doctor(projectDir: string, dbOverride?: string): { ok: boolean; text: string } {
  const p = projectPaths(projectDir, dbOverride);
  const checks: Check[] = [];
  const check = (label: string, fn: () => string): boolean => {
    try {
      checks.push({ outcome: 'ok', label, detail: fn() });
      return true;
    } catch (err) {
      // Damage found by any check, not only integrity_check, comes with the next step.
      const damaged = /^SQLITE_(CORRUPT|NOTADB)/.test(String((err as { code?: unknown }).code));
      const detail = (err as Error).message + (damaged ? `; ${DAMAGED_NEXT_STEP(p.dbPath)}` : '');
      checks.push({ outcome: 'fail', label, detail });
      return false;
    }
  };
  const info = (label: string, detail: string) => checks.push({ outcome: 'ok', label, detail });
  const skip = (label: string, why: string) => checks.push({ outcome: 'skip', label, detail: `not checked: ${why}` });
  const warn = (label: string, detail: string) => checks.push({ outcome: 'warn', label, detail });

  info('ralph-mcp', packageVersion());
  if (RUNTIME === 'bun') info('bun', `${process.versions.bun} (SQLite through bun:sqlite)`);
  else
    info(
      'node',
      process.version + (Number(process.versions.node.split('.')[0]) >= 20 ? '' : ' (ralph-mcp needs >= 20)'),
    );
  const project = check('project', () => projectCheck(p));
  const noProject = 'the project folder or its .ralph/ failed its check';

  let db: Db | undefined;
  let found = false;
  // The database is looked for in .ralph/ only when that is a folder; --db names it wherever it is.
  if (project || dbOverride !== undefined)
    check('database', () => {
      databaseLocation(p, dbOverride !== undefined);
      found = true;
      try {
        db = Db.open(p.dbPath, { queryOnly: true });
      } catch (err) {
        throw new Error(cannotOpen(p.dbPath, err));
      }
      schemaReadable(db);
      return `${p.dbPath} (readable)`;
    });
  else skip('database', noProject);
  if (found) check('database writable', () => writableForSessions(p.dbPath));
  const needsDb = ['sqlite', 'integrity', 'schema', 'ralph-mcp tables', 'overrides', 'recipes', ...DEPENDENCY_LABELS];
  if (!db) {
    for (const label of needsDb) skip(label, 'the database could not be opened');
  } else {
    try {
      databaseChecks(db, p, check, info, skip, warn);
    } finally {
      db.close();
    }
  }
  for (const f of [p.learningsFile, p.progressFile]) {
    const label = `state file ${f.slice(p.root.length + 1)}`;
    if (project) check(label, () => stateFileCheck(p, f));
    else skip(label, noProject);
  }
  const ok = checks.every((c) => c.outcome !== 'fail');
  const failed = checks.filter((c) => c.outcome === 'fail').length;
  const skipped = checks.filter((c) => c.outcome === 'skip').length;
  const warned = checks.filter((c) => c.outcome === 'warn').length;
  const text = checks.map((c) => `${MARK[c.outcome]} ${c.label.padEnd(24)} ${c.detail}`).join('\n');
  const warnings = warned ? `${warned} warning(s)` : '';
  const summary = ok
    ? `all checks passed${warned ? ` (${warnings})` : ''}`
    : `${failed} check(s) failed${skipped ? `, ${skipped} not run` : ''}${warned ? `, ${warnings}` : ''}`;
  return { ok, text: `${text}\n${summary}` };
}

/** Why the database could not be opened even read-only, in words a person acts on. */
function cannotOpen(dbPath: string, err: unknown): string {
  const message = (err as Error).message;
  const folder = dirname(dbPath);
  let denied: string | undefined;
  try {
    accessSync(folder, constants.W_OK);
  } catch (e) {
    denied = String((e as { code?: unknown }).code ?? 'EACCES');
  }
  // SQLite reads a WAL database through its -shm file, which it must create when absent.
  if (denied && !existsSync(`${dbPath}-shm`)) {
    const because =
      denied === 'EROFS'
        ? `${folder} is on a read-only file system (EROFS). Remount it read-write (or open the project once where it is writable)`
        : `this user cannot write ${folder} (${errnoWords(denied)}, ${denied}). Make the folder writable (or open the project once as a user who can)`;
    return `cannot be opened (${message}): SQLite needs ${basename(dbPath)}-shm beside a database in WAL mode and cannot create it, because ${because}`;
  }
  if (/not a database|malformed|corrupt/i.test(message))
    return `cannot be opened: ${message}; ${DAMAGED_NEXT_STEP(dbPath)}`;
  return `cannot be opened: ${message}`;
}

/** What to do about a damaged database file, the next step doctor names with the damage. */
const DAMAGED_NEXT_STEP = (dbPath: string) =>
  `the file is damaged: stop Ralph and every ralph-mcp session on it, then put back a copy (migrate keeps one ` +
  `as ${basename(dbPath)}.bak-…) or recover what is readable: sqlite3 ${dbPath} .recover | sqlite3 recovered.db`;

function databaseChecks(
  db: Db,
  p: ReturnType<typeof projectPaths>,
  check: (label: string, fn: () => string) => boolean,
  info: (label: string, detail: string) => void,
  skip: (label: string, why: string) => void,
  warn: (label: string, detail: string) => void,
): void {
  info('sqlite', sqliteVersion(db));
  check('integrity', () => {
    const msgs = integrityCheck(db);
    if (msgs.length !== 1 || msgs[0] !== 'ok')
      throw new Error(`integrity_check: ${msgs.slice(0, 5).join('; ')}; ${DAMAGED_NEXT_STEP(p.dbPath)}`);
    return 'ok';
  });
  let schema: SchemaInfo | undefined;
  check('schema', () => {
    const s = inspectSchema(db);
    if (s.generation === null) throw new Error(notRalphMessage(p.dbPath, s));
    if (s.userVersion !== RALPH_USER_VERSION)
      throw new Error(`user_version ${s.userVersion}; this ralph-mcp understands ${RALPH_USER_VERSION}`);
    if (s.drift.length) throw new Error(`schema drift: ${s.drift.join('; ')}`);
    schema = s;
    const tables = ralphTables(s.generation);
    return `${generationLabel(s.generation)}; user_version ${s.userVersion}, all ${tables.length} of its tables (${tables.slice(0, 6).join(', ')}${tables.length > 6 ? ', …' : ''})`;
  });
  if (!schema) {
    for (const label of ['ralph-mcp tables', 'overrides', 'recipes', ...DEPENDENCY_LABELS])
      skip(label, 'the schema is not one ralph-mcp can serve');
    return;
  }
  if (schema.generation === 'legacy')
    info(
      'schema today',
      `Ralph now writes the normalized schema; \`ralph-mcp migrate --project ${JSON.stringify(p.root)}\` moves this project to it, keeping a backup (docs/migrate.md)`,
    );
  const store = storeFor(db, schema);
  check('ralph-mcp tables', () => {
    const v = store.ownSchemaVersion();
    if (v === undefined) return 'none yet (created on the first write)';
    if (Number(v) > OWN_SCHEMA_VERSION)
      throw new Error(
        `version ${v}, newer than this ralph-mcp understands (${OWN_SCHEMA_VERSION}): writes would be refused; upgrade ralph-mcp`,
      );
    return `version ${v}`;
  });
  const parsed = overrideChecks(store, check);
  check('recipes', () => {
    const recipes = loadRecipes(p);
    const empty: string[] = [];
    for (const r of recipes) {
      if (resolveTools(TOOL_NAMES, r.allow).enabled.length === 0) empty.push(r.name);
      for (const [name, list] of parsed)
        if (resolveTools(TOOL_NAMES, r.allow, list).enabled.length === 0) empty.push(`${r.name}+${name}`);
    }
    if (empty.length) throw new Error(`no tools left in: ${empty.join(', ')}`);
    return `${recipes.length} recipes resolve (${recipes.map((r) => r.name).join(', ')}), with each discipline too`;
  });
  dependencyChecks(store, check, warn, skip);
}

/** One line per discipline: its overrides, parsed as a launch would (strictly). */
function overrideChecks(store: RalphStore, check: (label: string, fn: () => string) => boolean): Map<string, string[]> {
  const parsed = new Map<string, string[]>();
  let location: string | null = null;
  let rows: { name: string; raw: unknown }[] = [];
  const readable = check('overrides', () => {
    location = store.disciplines.overridesLocation();
    rows = store.disciplines.allToolOverrides();
    return location ? `stored in ${location}` : 'none set yet (`ralph-mcp overrides` sets one)';
  });
  if (!readable) return parsed;
  check('overrides of deleted disciplines', () => {
    const orphans = store.disciplines.orphanOverrides();
    if (orphans.length === 0) return 'none';
    throw new Error(
      `kept for ${orphans.join(', ')}: a discipline created again under that name would inherit them; remove them with \`ralph-mcp overrides --discipline NAME --clear\``,
    );
  });
  for (const row of rows) {
    check(`overrides ${row.name}`, () => {
      const list = readOverrides(row.name, row.raw, location ?? undefined);
      parsed.set(row.name, list);
      return list.length ? `disables ${list.join(', ')}` : 'none';
    });
  }
  return parsed;
}
