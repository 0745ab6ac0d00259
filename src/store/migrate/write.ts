import type { Db } from '../../db/database.js';
import { SIGNAL_COLUMNS } from '../../domain/signals.js';
import { timestamp } from '../../domain/rules.js';
import type { MigrationPlan } from './plan.js';
import { writeTasks } from './tasks.js';

/**
 * Writes a migration plan's rows of Ralph's into an empty normalized database (inside the caller's
 * transaction, the snapshot attached as `legacy`: tasks are copied from it, tasks.ts), keeping every id
 * agents and Ralph's rows already use. Comments become `learned` signals as
 * Ralph's head converted them itself, and a `blocked_by` becomes a `blocked` signal, its nearest equivalent.
 * What our own tables keep beside those rows (authors, learning fields, overrides) is returned, to be
 * written once our tables exist: made after Ralph's rows, their triggers and mirrors are built once, whole,
 * instead of row by row (most of the write's time at 100,000 tasks).
 */
export function writeRalphRows(db: Db, plan: MigrationPlan): OwnRows {
  const now = timestamp();
  const own: OwnRows = { overrides: [], learningMeta: [], commentMeta: [] };
  const m = plan.metadata;
  if (m) {
    db.run(
      'INSERT INTO metadata (id, schema_version, project_title, project_description, project_created) VALUES (1, ?, ?, ?, ?)',
      m.schema_version ?? '1.0',
      m.project_title ?? '',
      m.project_description ?? null,
      m.project_created ?? null,
    );
  }

  const disciplineIds = new Map<string, number>();
  for (const d of plan.disciplines) {
    const r = d.row;
    const id = Number(
      db.run(
        `INSERT INTO disciplines (name, display_name, acronym, icon, color, description, system_prompt, conventions, stack_id, image_path, crops, image_prompt)
         VALUES (@name, @display_name, @acronym, @icon, @color, @description, @system_prompt, @conventions, @stack_id, @image_path, @crops, @image_prompt)`,
        pick(r, [
          'name',
          'display_name',
          'acronym',
          'icon',
          'color',
          'description',
          'system_prompt',
          'conventions',
          'stack_id',
          'image_path',
          'crops',
          'image_prompt',
        ]),
      ).lastInsertRowid,
    );
    disciplineIds.set(String(r.name), id);
    for (const skill of d.skills)
      db.run('INSERT INTO discipline_skills (discipline_id, skill) VALUES (?, ?)', id, skill);
    for (const s of d.servers) {
      const server = Number(
        db.run(
          'INSERT INTO discipline_mcp_servers (discipline_id, name, command) VALUES (?, ?, ?)',
          id,
          s.name,
          s.command,
        ).lastInsertRowid,
      );
      for (const [i, arg] of s.args.entries())
        db.run('INSERT INTO discipline_mcp_server_args (server_id, arg, arg_order) VALUES (?, ?, ?)', server, arg, i);
      for (const [key, value] of s.env)
        db.run('INSERT INTO discipline_mcp_server_env (server_id, key, value) VALUES (?, ?, ?)', server, key, value);
    }
    if (d.overrides !== null) own.overrides.push([r.name, d.overrides]);
  }

  const featureIds = new Map<string, number>();
  for (const f of plan.features) {
    const r = f.row;
    const id = Number(
      db.run(
        `INSERT INTO subsystems (name, display_name, acronym, description, architecture, boundaries, status, created)
         VALUES (@name, @display_name, @acronym, @description, @architecture, @boundaries, 'active', @created)`,
        pick(r, ['name', 'display_name', 'acronym', 'description', 'architecture', 'boundaries', 'created']),
      ).lastInsertRowid,
    );
    featureIds.set(String(r.name), id);
    for (const p of f.knowledge_paths)
      db.run('INSERT INTO subsystem_knowledge_paths (subsystem_id, path) VALUES (?, ?)', id, p);
    for (const p of f.context_files)
      db.run('INSERT INTO subsystem_context_files (subsystem_id, file_path) VALUES (?, ?)', id, p);
    for (const l of f.learnings) {
      const comment = Number(
        db.run(
          "INSERT INTO subsystem_comments (subsystem_id, category, agent_task_id, body, summary, reason, source_iteration, created) VALUES (?, 'learning', ?, ?, ?, ?, ?, ?)",
          id,
          l.task_id,
          l.text,
          l.summary,
          l.reason,
          l.iteration,
          l.created,
        ).lastInsertRowid,
      );
      own.learningMeta.push([comment, l.source, l.hit_count, l.reviewed ? 1 : 0, l.review_count, l.extra]);
    }
  }
  // After every learning: Ralph reads a subsystem's comments newest first, and the legacy store reads
  // these entries before the learnings (docs/knowledge.md), so the order agents see is kept.
  for (const k of plan.own.knowledge) {
    const subsystem = featureIds.get(String(k.feature));
    if (subsystem === undefined) continue;
    db.run(
      `INSERT INTO subsystem_comments
         (subsystem_id, category, discipline_id, agent_task_id, body, summary, reason, source_iteration, created, updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      subsystem,
      k.category,
      disciplineIds.get(String(k.discipline)) ?? null,
      k.agent_task_id,
      k.body,
      k.summary,
      k.reason,
      k.source_iteration,
      k.created,
      k.updated,
    );
  }
  for (const f of plan.features) {
    for (const dep of f.dependencies) {
      db.run(
        'INSERT INTO subsystem_dependencies (subsystem_id, depends_on_subsystem_id) VALUES (?, ?)',
        featureIds.get(String(f.row.name)),
        featureIds.get(dep),
      );
    }
  }

  writeTasks(db);

  // Session numbers run 1, 2, … in the order sessions are first needed (nothing else writes meanwhile).
  const sessions = new Set<string>();
  const newSession = (sid: string, kind: string, startedBy: string, taskId: number, started: string) => {
    if (sessions.has(sid)) return sid;
    sessions.add(sid);
    db.run(
      `INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'finished')`,
      sid,
      sessions.size,
      kind,
      startedBy,
      taskId,
      started,
      started,
    );
    return sid;
  };
  const session = (taskId: number, started: string) =>
    newSession(`legacy-task-${taskId}`, 'manual', 'human', taskId, started);
  // A comment that shows a signal verb becomes that verb's signal, in its own agent session (as Ralph's
  // signal server makes one), keeping the comment's place among the task's comments and its author.
  const verbOf = new Map(
    plan.own.taskSignals.filter((r) => r.comment_id !== null).map((r) => [Number(r.comment_id), r]),
  );
  const agentSession = (sid: string, taskId: number, started: string) =>
    newSession(sid, 'task_execution', 'agent', taskId, started);
  const insertVerbSignal = (verb: Record<string, unknown>) =>
    db.run(
      `INSERT INTO task_signals (task_id, session_id, verb, text, summary, remaining, reason, question, what, "on", blocking, severity, category, kind, scope, preferred, options, rationale, why, detail, answer, created)
       VALUES (@task_id, @session_id, @verb, @text, @summary, @remaining, @reason, @question, @what, @on, @blocking, @severity, @category, @kind, @scope, @preferred, @options, @rationale, @why, @detail, @answer, @created)`,
      pick(verb, SIGNAL_ROW),
    ).lastInsertRowid;
  for (const c of plan.comments) {
    const created = typeof c.created === 'string' && c.created !== '' ? c.created : now;
    const verb = verbOf.get(Number(c.id));
    if (verb) {
      agentSession(String(verb.session_id), Number(verb.task_id), String(verb.created));
      const signal = Number(insertVerbSignal(verb));
      own.commentMeta.push([signal, c.author, c.discipline, c.agent_task_id, c.priority]);
      continue;
    }
    const signal = Number(
      db.run(
        "INSERT INTO task_signals (task_id, session_id, verb, text, kind, scope, created) VALUES (?, ?, 'learned', ?, 'discovery', 'task', ?)",
        c.task_id,
        session(Number(c.task_id), created),
        c.body,
        created,
      ).lastInsertRowid,
    );
    own.commentMeta.push([signal, c.author, c.discipline, c.agent_task_id, c.priority]);
  }
  // A signal whose comment a person deleted keeps its place as a signal (no comment to show any more).
  const commentIds = new Set(plan.comments.map((c) => Number(c.id)));
  for (const verb of plan.own.taskSignals) {
    if (verb.comment_id !== null && commentIds.has(Number(verb.comment_id))) continue;
    agentSession(String(verb.session_id), Number(verb.task_id), String(verb.created));
    insertVerbSignal(verb);
  }
  for (const t of plan.tasks) {
    const why = t.row.blocked_by;
    if (typeof why !== 'string' || why === '') continue;
    db.run(
      "INSERT INTO task_signals (task_id, session_id, verb, \"on\", kind, created) VALUES (?, ?, 'blocked', ?, 'external', ?)",
      t.row.id,
      session(Number(t.row.id), now),
      why,
      now,
    );
  }

  for (const r of plan.recipeConfigs) {
    db.run(
      'INSERT INTO prompt_builder_configs (name, base_prompt, section_order, sections, created, updated) VALUES (?, ?, ?, ?, ?, ?)',
      r.name,
      r.base_recipe,
      r.section_order ?? '[]',
      r.sections ?? '{}',
      r.created ?? null,
      r.updated ?? null,
    );
  }

  return own;
}

/** Rows of our tables that belong to Ralph's rows just written (each as its INSERT's parameters). */
export interface OwnRows {
  overrides: unknown[][];
  learningMeta: unknown[][];
  commentMeta: unknown[][];
}

/** Writes them, once our tables exist. */
export function writeOwnRows(db: Db, own: OwnRows): void {
  for (const row of own.overrides)
    db.run('INSERT INTO ralph_mcp_discipline_overrides (discipline, mcp_tool_overrides) VALUES (?, ?)', ...row);
  for (const row of own.learningMeta)
    db.run(
      `INSERT INTO ralph_mcp_learning_meta (comment_id, source, hit_count, reviewed, review_count, extra)
       VALUES (?, ?, ?, ?, ?, ?)`,
      ...row,
    );
  for (const row of own.commentMeta)
    db.run(
      `INSERT INTO ralph_mcp_comment_meta (signal_id, author, discipline, agent_task_id, priority)
       VALUES (?, ?, ?, ?, ?)`,
      ...row,
    );
}

/** A ralph_mcp_task_signals row's columns that task_signals has, by the same names. */
const SIGNAL_ROW = ['task_id', 'session_id', 'verb', ...SIGNAL_COLUMNS, 'created'] as const;

/** The named fields of a row, as bound parameters (missing ones as NULL). */
function pick(row: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, row[k] ?? null]));
}
