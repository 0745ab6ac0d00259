import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { before, describe, test } from 'node:test';
import ts from 'typescript';
import { REPO } from '../helpers/env.js';
import { query, sql } from '../helpers/project.js';
import { counts, ralphComments, ralphDiscipline, ralphFeature, ralphTask } from '../helpers/ralphRead.js';
import { contract, type InProcSession } from './harness.js';

/**
 * Issue 7, SQL: hostile values are stored and read back verbatim, and no SQL text is built from input.
 *
 * (1) Through a session, on both generations: injection payloads, quotes, `%`/`_`, FTS5 syntax, control
 *     characters and non-ASCII, written into every kind of text field, come back byte for byte through
 *     the tools and as Ralph reads them, and Ralph's tables are all still there.
 * (2) Statically: every place SQL text reaches SQLite (Db.get/all/run/stmt, better-sqlite3's
 *     prepare/exec/pragma) is traced back through constants and helper functions, with the
 *     TypeScript compiler's type checker. SQL made of literals and constants passes; every spot where
 *     something else is spliced in must be on the short allow-list below, with the reason it is safe.
 *     A new one fails the test until it is reviewed and listed.
 */

// ---- (1) hostile values, end to end --------------------------------------------------------------

const HOSTILE = [
  "'; DROP TABLE tasks; --",
  "Robert'); DELETE FROM task_comments WHERE ('1'='1",
  '" OR 1=1 --',
  "\\'; SELECT * FROM metadata; --",
  '100% of _cases_ % _ \\% \\_',
  'NEAR(title body, 2) OR "quoted" AND NOT x* ^start title:hack {title}: -minus +plus',
  '\u0000NUL in the middle\u0000',
  'tab\tnewline\nreturn\r\nbell\u0007',
  'ünïcödé — 日本語 — עברית — 🧪👩‍🔬 — \u202eRTL',
  '$1 ?1 :name @name ?',
  '/* comment */ -- line comment',
  "x'; ATTACH DATABASE '/tmp/evil.db' AS evil; --",
];

/** The fields `keys` of `record`, to compare with one deepEqual. */
const pick = (record: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, record[k]]));

contract('hostile values are stored and read back verbatim', (env) => {
  let s: InProcSession;
  before(async () => {
    s = await env.open(); // the full suite: every writing tool
  });
  const db = () => s.project.dbPath;
  const tablesOf = () =>
    query<{ name: string }>(
      s.project,
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'ralph_mcp%' ORDER BY name",
    ).map((r) => r.name);

  test('tasks, comments, features, disciplines, state files: every field round-trips', async () => {
    const tablesBefore = tablesOf();
    for (const [i, v] of HOSTILE.entries()) {
      // Titles are trimmed (leading/trailing white space only): pad so the value itself survives.
      const title = `t${i} ${v} .`;
      const lists = { acceptance_criteria: [`ac ${v}`], tags: [`tag ${v}`], output_artifacts: [`out ${v}`] };
      const fields = { title, description: v, hints: v, ...lists };
      const id: number = (await s.ok('create_task', { feature: 'search', discipline: 'backend', ...fields })).task.id;
      const { task } = await s.ok('get_task', { id });
      assert.deepEqual(pick(task, Object.keys(fields)), fields, JSON.stringify(v));
      const row = ralphTask(db(), id)!;
      assert.deepEqual(
        [row.title, row.description, row.acceptance_criteria],
        [title, v, lists.acceptance_criteria],
        'as Ralph reads it, byte for byte (NULs included)',
      );
      await s.ok('update_task', { id, description: `${v} (updated)` });
      assert.equal(ralphTask(db(), id)!.description, `${v} (updated)`);

      const author = 'agent'; // the server signs comments (a session without a discipline)
      const { comment } = await s.ok('add_task_comment', { task_id: id, body: `b ${v} .` });
      assert.deepEqual([comment.author, comment.body], [author, `b ${v} .`]);
      await s.ok('update_task_comment', { task_id: id, comment_id: comment.id, body: `edited ${v} .` });
      const stored = ralphComments(db(), id).find((x) => x.id === comment.id)!;
      assert.deepEqual({ body: stored.body, author: stored.author }, { body: `edited ${v} .`, author });

      // Status changes and blockers carry text too.
      await s.ok('skip_task', { id, reason: `r ${v} .` });
      assert.ok((await s.ok('get_task', { id })).comments.some((x: { body: string }) => x.body.includes(v)));
    }
    const { tasks } = await s.ok('list_tasks', { filter_feature: 'search', limit: 500 });
    const listed = tasks.map((t: { title: string }) => t.title);
    for (const [i, v] of HOSTILE.entries())
      assert.ok(listed.includes(`t${i} ${v} .`), `list_tasks shows ${JSON.stringify(v)}`);
    assert.deepEqual(tablesOf(), tablesBefore, "Ralph's tables are all still there");
    assert.ok(counts(db()).tasks > 0);
  });

  test('features and disciplines (names are validated; every free-text field takes anything)', async () => {
    for (const [i, v] of HOSTILE.entries()) {
      const [name, display_name] = [`f${i}`, `F ${v} .`];
      const f = await s.ok('create_feature', { name, display_name, description: v, architecture: v, boundaries: v });
      assert.equal(f.feature.description, v);
      await s.ok('update_feature', { name, architecture: `${v}!` });
      const want = { display_name, description: v, architecture: `${v}!`, boundaries: v };
      assert.deepEqual(pick(ralphFeature(db(), name), Object.keys(want)), want);

      const discipline = { name: `d${i}`, display_name: `D ${v} .`, icon: 'Code', color: '#123456' };
      const d = await s.ok('create_discipline', { ...discipline, system_prompt: v, conventions: v });
      assert.equal(d.discipline.system_prompt, v);
      await s.ok('update_discipline', { name: `d${i}`, conventions: `${v}?` });
      assert.equal(ralphDiscipline(db(), `d${i}`)!.conventions, `${v}?`);
    }
    // A hostile name is refused by validation, not by luck, and changes nothing.
    for (const v of HOSTILE)
      assert.equal((await s.fail('create_feature', { name: v, display_name: 'x' })).code, 'invalid_argument');
    // Looking a hostile name up is a plain not_found (bound as a value, never spliced in).
    for (const v of HOSTILE.slice(0, 4)) {
      assert.equal((await s.fail('get_feature', { name: v })).code, 'not_found');
      assert.equal((await s.fail('list_tasks', { filter_feature: v })).code, 'not_found');
    }
  });

  test('search: FTS5 syntax and LIKE wildcards are plain words, never operators; the index holds the values', async () => {
    for (const q of HOSTILE) {
      const r = await s.call('search_tasks', { query: q });
      // Either results or "no searchable words"; never an FTS5 syntax error (internal).
      if (r.isError)
        assert.equal((r.structuredContent as { error: { code: string } }).error.code, 'invalid_argument', q);
    }
    const title = 'Zebracorn NEAR OR AND importer';
    const { id } = (await s.ok('create_task', { feature: 'search', discipline: 'backend', title })).task;
    const hits = await s.ok('search_tasks', { query: 'zebracorn NEAR(' });
    assert.deepEqual(
      hits.results.map((h: { id: number }) => h.id),
      [id],
    );
    assert.equal((await s.ok('search_tasks', { query: '"zebracorn" OR *' })).results[0].id, id);
    // A bare '%' or '_' matches nothing rather than everything.
    assert.equal((await s.call('search_tasks', { query: '%' })).isError, true);
  });

  test('state files and learnings keep the text (SQL syntax is not instruction-like)', async () => {
    const text = `Escape input: ${HOSTILE[0]} is harmless when bound`;
    const l = await s.ok('append_feature_learning', { feature_name: 'auth', text });
    assert.deepEqual([l.learning.text, l.sanitized], [text, undefined]);
    await s.ok('append_progress', { text: `progress ${HOSTILE[0]}` });
    assert.ok((await s.ok('read_progress', { last: 1 })).content.includes(`progress ${HOSTILE[0]}`));
  });

  test('the database is intact', () => {
    const db = sql(s.project);
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(db.pragma('foreign_key_check'), []);
    } finally {
      db.close();
    }
  });
});

// ---- (2) no SQL built from input -----------------------------------------------------------------

/**
 * Every place where SQL text is put together from something other than literals and constants, by
 * file and enclosing declaration: how many such spots it holds ("2 spots: …") and why each is safe. Keep it
 * short: a new entry needs a reason of the same kind (a fixed list of identifiers chosen by our code,
 * never a value from a caller).
 */
const ALLOWED: Record<string, string> = {
  'src/store/legacy/tasks.ts listSql':
    '2 spots: WHERE fragments from filterSql(): fixed "column = @column" strings for a constant column list; values are bound',
  'src/store/legacy/tasks.ts filterSql':
    '2 spots: fixed "column = @column" fragments for the constant FILTER_COLUMNS (keys ours, never input); the parameters are the bound values',
  'src/store/own/search.ts boundedSearch':
    "4 spots: the generation's constant join and its filter fragments (filterSql: fixed strings per filter key), each prefixed with AND, and the constant BM25 expressions; the FTS query and all values bound",
  'src/store/own/search.ts TEXT_SQL':
    '1 spot: the constant COLUMNS of our index and the constant SNIPPET_SCAN length, built at module load; ids bound',
  'src/store/legacy/tasks.ts UPDATE_SQL':
    '1 spot: one UPDATE per column of the constant UPDATABLE list, built at module load; values bound',
  'src/store/legacy/features.ts UPDATE_SQL':
    '1 spot: one UPDATE per column of the constant UPDATABLE list, built at module load; values bound',
  'src/store/legacy/disciplines.ts UPDATE_SQL':
    '1 spot: one UPDATE per column of the constant UPDATABLE list, built at module load; values bound',
  'src/domain/packageInfo.ts packageText':
    "2 spots: the package's own files (Ralph's DDL per generation, ours from schema/*.sql), read from the installed package by a path our code names, or the same files embedded at build time in the single executable (scripts/build-exe.mjs, installed by src/startup/buildTables.ts)",
  'src/db/sqlite.ts openBun':
    '1 spot: PRAGMA busy_timeout under Bun: a whole number of milliseconds from busyTimeoutMs() (validated), truncated',
  'src/store/own/ddl.ts ownDdl':
    "1 spot: schema/ralph-mcp.sql + schema/ralph-mcp-<generation>.sql, both the package's own files",
  'src/store/own/ddl.ts searchDdl':
    "1 spot: schema/ralph-mcp-search.sql + schema/ralph-mcp-search-<generation>.sql, both the package's own files",
  'src/store/normalized/sql.ts filterSql':
    '2 spots: fixed fragments of the constant FILTERS per filter key (keys ours, never input); the parameters are the bound values',
  'src/store/normalized/tasks.ts LIST_SQL':
    '1 spot: one DELETE and one INSERT per child table of the constant LIST_TABLES, built at module load; values bound',
  'src/store/normalized/tasks.ts DETAIL_SQL':
    '1 spot: one UPDATE per column of the constant DETAIL_FIELDS list, built at module load; values bound',
  'src/store/normalized/tasks.ts listSql':
    "4 spots: constant FROM clauses and listWhere's fixed fragments per filter key, the constant joins and DEPENDS_ON list, the page's ids as a subquery of the same fragments; values bound",
  'src/store/taskList.ts countSql':
    "2 spots: COUNT(*) around a caller's constant FROM clause and fixed WHERE fragments (listSql of each generation); the cap is a bound parameter",
  // Issue 27's blocked view: statements built once at module load from each generation's constant
  // dialect (store/blocked.ts BlockedDialect); ids, feature, cursor and limits are bound.
  'src/store/blocked.ts blockedPageSql':
    "3 spots: the page's columns from the generation's constant dialect (its joins, dependency rows, signals table) and constant bounds; the page's ids bound as a JSON array",
  'src/store/blocked.ts blockedIdsSql':
    "1 spot: the held group's constant arms (heldArms) joined by UNION, or the waiting group's statement; values bound",
  'src/store/blocked.ts blockedCountSql':
    "1 spot: COUNT(*) around the group's constant statement; the cap is a bound parameter",
  'src/store/blocked.ts heldArms':
    "1 spot: each arm wrapped as a subquery: the arms are fixed text over the dialect's constant tables",
  'src/store/blocked.ts closingSql':
    '1 spot: the newest closing verb: a constant signals table name, a constant id column and the constant CLOSING_VERBS list',
  'src/store/legacy/blocked.ts dialect':
    '1 spot: the legacy dialect: our signals table by name, or none before it exists (a constant choice)',
  'src/store/legacy/blocked.ts statements':
    '1 spot: every statement of the view, built at module load, with and without a feature filter',
  'src/store/normalized/blocked.ts SQL':
    '4 spots: every statement of the view, built at module load from the constant normalized dialect, with and without a feature filter',
  'src/store/normalized/features.ts UPDATE_SQL':
    '1 spot: one UPDATE per column of the constant COLUMNS list, built at module load; values bound',
  'src/store/normalized/disciplines.ts UPDATE_SQL':
    '1 spot: one UPDATE per column of the constant COLUMNS list, built at module load; values bound',
  'src/store/normalized/signals.ts insertSql':
    "1 spot: looks up one INSERT per signal shape, built at module load from the constant SHAPES list (each verb's VERB_COLUMNS, quoted); values bound",
  'src/store/legacy/signals.ts legacySignals':
    '1 spot: looks up one INSERT per verb, built at module load from the constant VERB_COLUMNS list (quoted column names); values bound',
  'src/store/migrate/plan.ts unknownColumnsWithData':
    "1 spot: table names from our own legacy DDL and column names read from the database's own schema (pragma_table_info), quoted as identifiers; only counts rows",
  'src/store/migrate/tableSql.ts tableSql':
    "7 spots: table and column names read from the file's own schema (sqlite_master, pragma_table_xinfo), each quoted as an identifier; no value is spliced in",
  'src/store/migrate/userObjects.ts makeObjects':
    "1 spot: a person's own CREATE statement from sqlite_master, run as written on the new file they migrate",
  'src/store/migrate/verify.ts readRules':
    "2 spots: Ralph's read rules as a constant list of statements (one splices the constant TASK_STATUSES); nothing from input",
};

/** The receivers whose methods take SQL text as their first argument. */
const SINKS: Record<string, ReadonlySet<string>> = {
  Db: new Set(['get', 'all', 'run', 'stmt']),
  Database: new Set(['prepare', 'exec', 'pragma']),
  // src/db/sqlite.ts: the driver connection (better-sqlite3 under Node, bun:sqlite under Bun).
  Connection: new Set(['prepare', 'exec', 'pragma']),
};

interface Spot {
  key: string;
  where: string;
  text: string;
}

/** Declarations whose name keys a spot; expressions as constant as the one they hold. */
const NAMED = [
  ts.isFunctionDeclaration,
  ts.isClassDeclaration,
  ts.isMethodDeclaration,
  ts.isVariableDeclaration,
  ts.isPropertyAssignment,
];
const WRAPPERS = [
  ts.isParenthesizedExpression,
  ts.isAsExpression,
  ts.isNonNullExpression,
  ts.isSatisfiesExpression,
  ts.isElementAccessExpression,
  ts.isPropertyAccessExpression,
];
const isFunction = (n: ts.Node | undefined): n is ts.FunctionLikeDeclaration =>
  !!n &&
  (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n));

/**
 * Finds where SQL is built from non-constant parts in `files`. `key` is "file Enclosing.Declaration".
 * A template literal or `+` counts as built when any part of it is not a constant; an SQL argument
 * that cannot be traced to constants at all (a parameter, a value from outside our code) counts too.
 */
function findDynamicSql(program: ts.Program, files: readonly string[]): { spots: Spot[]; sinks: number } {
  const checker = program.getTypeChecker();
  const spots = new Map<ts.Node, Spot>();
  let sinks = 0;

  const declName = (n: ts.Node): string | undefined =>
    NAMED.some((is) => is(n)) ? (n as ts.NamedDeclaration).name?.getText() : undefined;
  const keyOf = (n: ts.Node): { key: string; where: string } => {
    const names: string[] = [];
    for (let x: ts.Node | undefined = n; x; x = x.parent) {
      const name = declName(x);
      if (name) names.unshift(name);
    }
    const sf = n.getSourceFile();
    const file = relative(REPO, sf.fileName);
    // The top-level declaration: tool handlers live in `const x = defineTool({ handler() {} })`.
    const key = `${file} ${names[0] ?? '(module)'}`;
    const { line } = sf.getLineAndCharacterOfPosition(n.getStart());
    return { key, where: `${file}:${line + 1}` };
  };
  const flag = (n: ts.Node) => {
    if (!spots.has(n)) spots.set(n, { ...keyOf(n), text: n.getText().replace(/\s+/g, ' ').slice(0, 160) });
  };

  const functionOf = (decl: ts.Declaration | undefined): ts.FunctionLikeDeclaration | undefined => {
    if (isFunction(decl)) return decl;
    return decl && ts.isVariableDeclaration(decl) && isFunction(decl.initializer) ? decl.initializer : undefined;
  };
  const inOurCode = (n: ts.Node) => files.includes(n.getSourceFile().fileName);
  const resolve = (id: ts.Node): ts.Declaration | undefined => {
    let sym = checker.getSymbolAtLocation(id);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    return sym?.valueDeclaration ?? sym?.declarations?.[0];
  };

  /**
   * True when `e` is made of literals and constants only. Otherwise the spot that makes it so is
   * flagged: the template or `+` that splices something in (its parts are not flagged on their own),
   * or, for an SQL argument that is neither, the expression itself. Constants and our own helper
   * functions are followed to their definitions, where their own spots are flagged.
   */
  const isConstant = (e: ts.Expression, seen: Set<ts.Node>, report = true): boolean => {
    if (seen.has(e)) return true;
    seen.add(e);
    const fail = () => {
      if (report && inOurCode(e)) flag(e);
      return false;
    };
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return true;
    // A wrapper, an element or a property of a constant object (a table of fixed statements, a constant
    // SearchSource): as constant as what it holds.
    if (WRAPPERS.some((is) => is(e))) return isConstant((e as ts.AsExpression).expression, seen, report);
    if (ts.isConditionalExpression(e))
      return [isConstant(e.whenTrue, seen, report), isConstant(e.whenFalse, seen, report)].every(Boolean);
    if (ts.isTemplateExpression(e)) {
      // Every part is looked at (so helpers are followed), then the template is the one spot.
      const parts = e.templateSpans.map((span) => isConstant(span.expression, seen, false));
      return parts.every(Boolean) || fail();
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return [isConstant(e.left, seen, false), isConstant(e.right, seen, false)].every(Boolean) || fail();
    }
    if (ts.isIdentifier(e)) {
      const decl = resolve(e);
      if (
        decl &&
        ts.isVariableDeclaration(decl) &&
        decl.initializer &&
        ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const &&
        inOurCode(decl)
      ) {
        return isConstant(decl.initializer, seen);
      }
      // A parameter of a function of ours: what every caller passes there (the Db wrapper's `sql`, a
      // local helper's). Unreachable functions and rest parameters are not provably constant.
      if (decl && ts.isParameter(decl) && !decl.dotDotDotToken && inOurCode(decl))
        return parameterIsConstant(decl) || fail();
      return fail();
    }
    if (ts.isObjectLiteralExpression(e)) {
      return e.properties
        .map((prop) => ts.isPropertyAssignment(prop) && isConstant(prop.initializer, seen, report))
        .every(Boolean);
    }
    if (ts.isCallExpression(e)) {
      const fn = functionOf(resolve(ts.isPropertyAccessExpression(e.expression) ? e.expression.name : e.expression));
      if (fn?.body && inOurCode(fn)) {
        const returned: ts.Expression[] = [];
        if (!ts.isBlock(fn.body)) returned.push(fn.body);
        else {
          const visit = (n: ts.Node): void => {
            if (ts.isReturnStatement(n) && n.expression) returned.push(n.expression);
            if (!ts.isFunctionLike(n)) ts.forEachChild(n, visit);
          };
          ts.forEachChild(fn.body, visit);
        }
        return returned.length > 0 && returned.map((r) => isConstant(r, seen)).every(Boolean);
      }
    }
    // Anything else (a parameter, a value from a library call, ...) is not provably constant.
    return fail();
  };

  /** The calls in our code of a function of ours (only calls by its name are resolved: the checker is slow). */
  const callsOf = (fn: ts.SignatureDeclaration): ts.CallExpression[] => {
    const holder = ts.isArrowFunction(fn) || ts.isFunctionExpression(fn) ? fn.parent : fn;
    const name = (holder as { name?: ts.Node }).name?.getText();
    if (!name) return [];
    return allCalls.filter((call) => {
      const callee = ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
      return callee.getText() === name && functionOf(resolve(callee)) === fn;
    });
  };
  const parameterResults = new Map<ts.ParameterDeclaration, boolean>();
  const parameterIsConstant = (param: ts.ParameterDeclaration): boolean => {
    const known = parameterResults.get(param);
    if (known !== undefined) return known;
    const fn = param.parent;
    if (!ts.isFunctionLike(fn)) return false;
    // The SQL parameter of a sink itself (Db.get's `sql`, passed on to Db.stmt): every call of it is a
    // sink, checked on its own.
    if (
      ts.isMethodDeclaration(fn) &&
      ts.isClassDeclaration(fn.parent) &&
      SINKS[fn.parent.name?.text ?? '']?.has(fn.name.getText())
    )
      return true;
    parameterResults.set(param, true); // while in progress (recursion): judged by the other callers
    const index = fn.parameters.indexOf(param);
    const calls = callsOf(fn);
    const result =
      calls.length > 0 &&
      calls.map((c) => (c.arguments[index] ? isConstant(c.arguments[index], new Set()) : false)).every(Boolean);
    parameterResults.set(param, result);
    return result;
  };

  const allCalls: ts.CallExpression[] = [];
  const sinkCalls: ts.CallExpression[] = [];
  for (const file of files) {
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n)) {
        allCalls.push(n);
        const method = ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : undefined;
        // The method name first: asking the checker for the type of every receiver is slow.
        if (method && n.arguments.length > 0 && Object.values(SINKS).some((m) => m.has(method))) {
          const type = checker.getTypeAtLocation((n.expression as ts.PropertyAccessExpression).expression);
          const typeName = (type.getSymbol() ?? type.aliasSymbol)?.getName();
          if (typeName && SINKS[typeName]?.has(method)) sinkCalls.push(n);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(program.getSourceFile(file)!);
  }
  for (const call of sinkCalls) {
    sinks++;
    isConstant(call.arguments[0]!, new Set());
  }
  return { spots: [...spots.values()], sinks };
}

/**
 * Our sources plus better-sqlite3's types, nothing else: imports of other libraries (zod, the MCP SDK)
 * stay unresolved (noResolve), which keeps the checker fast and changes nothing about which values
 * are Db, Connection or Database handles.
 */
function compile(files: string[]): ts.Program {
  const config = ts.readConfigFile(join(REPO, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, REPO);
  const roots = [
    ...new Set([
      ...files,
      join(REPO, 'src', 'db', 'database.ts'),
      join(REPO, 'src', 'db', 'sqlite.ts'),
      join(REPO, 'node_modules', '@types', 'better-sqlite3', 'index.d.ts'),
    ]),
  ];
  return ts.createProgram(roots, { ...options, noEmit: true, noResolve: true, types: [] });
}

const srcFiles = (): string[] =>
  readdirSync(join(REPO, 'src'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(REPO, 'src', f));

describe('no SQL is built from input (static check over src/**/*.ts)', () => {
  test('every spot where SQL text is put together from non-constants is on the reviewed allow-list', () => {
    const files = srcFiles();
    const { spots, sinks } = findDynamicSql(compile(files), files);
    assert.ok(sinks >= 80, `found only ${sinks} SQL calls: the sink detection is broken`);
    const counts = new Map<string, Spot[]>();
    for (const s of spots) counts.set(s.key, [...(counts.get(s.key) ?? []), s]);
    const problems: string[] = [];
    for (const [key, list] of counts) {
      const where = list.map((s) => `\n    ${s.where}: ${s.text}`).join('');
      const allowed = ALLOWED[key] && Number.parseInt(ALLOWED[key], 10);
      if (!allowed) problems.push(`not on the allow-list: ${key}${where}`);
      else if (allowed !== list.length)
        problems.push(`${key}: ${list.length} spot(s), the allow-list says ${allowed}${where}`);
    }
    for (const key of Object.keys(ALLOWED))
      if (!counts.has(key)) problems.push(`stale allow-list entry (no longer found): ${key}`);
    assert.deepEqual(
      problems,
      [],
      `SQL built from non-constant parts. Bind values as parameters (?, @name); if an identifier really must be spliced in, take it from a constant list and add the spot to ALLOWED with the reason:\n${problems.join('\n')}`,
    );
  });

  test('the check itself catches concatenation, interpolation and untraceable SQL (and passes constants)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-sqlcheck-'));
    try {
      const probe = join(dir, 'probe.ts');
      const dbModule = join(REPO, 'src', 'db', 'database.js');
      writeFileSync(
        probe,
        `import type { Db } from ${JSON.stringify(dbModule)};
const COLUMNS = 'id, title';
const BASE = \`SELECT \${COLUMNS} FROM tasks\`;
const pick = (all: boolean) => (all ? 'SELECT * FROM tasks' : \`\${BASE} WHERE id = ?\`);
export function ok(db: Db, id: number) {
  db.get(BASE + ' WHERE id = ?', id);
  db.all(pick(true));
  db.raw.prepare(\`\${BASE} LIMIT 1\`).get();
}
const STATEMENTS = { one: 'SELECT * FROM tasks WHERE id = ?', all: \`\${BASE} ORDER BY id\` };
export function ok2(db: Db, which: 'one' | 'all') {
  db.all(STATEMENTS[which]);
  db.get(STATEMENTS.one, 1);
}
export function bad(db: Db, title: string, sqlText: string, input: { sql: string }) {
  db.get(\`SELECT * FROM tasks WHERE title = '\${title}'\`);
  db.run('DELETE FROM tasks WHERE title = ' + title);
  db.raw.exec(sqlText);
  db.all(input.sql);
  new Map<string, string>().get(title);
}
`,
      );
      const { spots, sinks } = findDynamicSql(compile([probe]), [probe]);
      assert.equal(sinks, 9, 'Map#get is not an SQL call');
      assert.deepEqual(
        spots.map((s) => s.text),
        [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text the check must flag
          "`SELECT * FROM tasks WHERE title = '${title}'`",
          "'DELETE FROM tasks WHERE title = ' + title",
          'sqlText',
          'input',
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
