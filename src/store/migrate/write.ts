import type { Db } from '../../db/database.js';
import { SIGNAL_COLUMNS } from '../../domain/signals.js';
import { timestamp } from '../../domain/rules.js';
import type { MigrationPlan } from './plan.js';

/**
 * Writes a migration plan into an empty normalized database in one transaction, keeping every id agents and
 * Ralph's rows already use. Comments become `learned` signals as Ralph's head converted them itself (authors
 * kept in ralph_mcp_comment_meta), and a `blocked_by` becomes a `blocked` signal, its nearest equivalent.
 */
export function writePlan(db: Db, plan: MigrationPlan): void {
  const now = timestamp();
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
    if (d.overrides !== null)
      db.run(
        'INSERT INTO ralph_mcp_discipline_overrides (discipline, mcp_tool_overrides) VALUES (?, ?)',
        r.name,
        d.overrides,
      );
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
          "INSERT INTO subsystem_comments (subsystem_id, category, agent_task_id, body, reason, source_iteration, created) VALUES (?, 'learning', ?, ?, ?, ?, ?)",
          id,
          l.task_id,
          l.text,
          l.reason,
          l.iteration,
          l.created,
        ).lastInsertRowid,
      );
      db.run(
        'INSERT INTO ralph_mcp_learning_meta (comment_id, source, hit_count, reviewed, review_count, extra) VALUES (?, ?, ?, ?, ?, ?)',
        comment,
        l.source,
        l.hit_count,
        l.reviewed ? 1 : 0,
        l.review_count,
        l.extra,
      );
    }
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

  for (const t of plan.tasks) {
    const r = t.row;
    const id = Number(r.id);
    db.run(
      `INSERT INTO task_details (id, discipline_id, title, description, priority, hints, estimated_turns, pseudocode, created, updated)
       VALUES (@id, @discipline_id, @title, @description, @priority, @hints, @estimated_turns, @pseudocode, @created, @updated)`,
      {
        ...pick(r, [
          'id',
          'title',
          'description',
          'priority',
          'hints',
          'estimated_turns',
          'pseudocode',
          'created',
          'updated',
        ]),
        discipline_id: disciplineIds.get(String(r.discipline)),
      },
    );
    db.run(
      `INSERT INTO runtime_tasks (id, subsystem_id, details_id, status, provenance, enriched_at, created, updated, completed)
       VALUES (@id, @subsystem_id, @id, @status, @provenance, @enriched_at, @created, @updated, @completed)`,
      {
        ...pick(r, ['id', 'status', 'provenance', 'enriched_at', 'created', 'updated', 'completed']),
        subsystem_id: featureIds.get(String(r.feature)),
      },
    );
    for (const tag of t.tags) db.run('INSERT INTO task_tags (task_id, tag) VALUES (?, ?)', id, tag);
    for (const [i, c] of t.criteria.entries())
      db.run('INSERT INTO task_acceptance_criteria (task_id, criterion, criterion_order) VALUES (?, ?, ?)', id, c, i);
    for (const p of t.context_files) db.run('INSERT INTO task_context_files (task_id, file_path) VALUES (?, ?)', id, p);
    for (const p of t.output_artifacts)
      db.run('INSERT INTO task_output_artifacts (task_id, artifact_path) VALUES (?, ?)', id, p);
  }
  // Dependencies once every task exists (a task may depend on a later one).
  for (const t of plan.tasks)
    for (const dep of t.depends_on)
      db.run('INSERT INTO task_dependencies (task_id, depends_on_task_id) VALUES (?, ?)', t.row.id, dep);

  const session = (taskId: number, started: string) => {
    const sid = `legacy-task-${taskId}`;
    db.run(
      `INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status)
       SELECT @sid, (SELECT coalesce(max(session_number), 0) + 1 FROM agent_sessions), 'manual', 'human', @task, @started, @started, 'finished'
       WHERE NOT EXISTS (SELECT 1 FROM agent_sessions WHERE id = @sid)`,
      { sid, task: taskId, started },
    );
    return sid;
  };
  // A comment that shows a signal verb becomes that verb's signal, in its own agent session (as Ralph's
  // signal server makes one), keeping the comment's place among the task's comments and its author.
  const verbOf = new Map(
    plan.own.taskSignals.filter((r) => r.comment_id !== null).map((r) => [Number(r.comment_id), r]),
  );
  const agentSession = (sid: string, taskId: number, started: string) =>
    db.run(
      `INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status)
       SELECT @sid, (SELECT coalesce(max(session_number), 0) + 1 FROM agent_sessions), 'task_execution', 'agent', @task, @started, @started, 'finished'
       WHERE NOT EXISTS (SELECT 1 FROM agent_sessions WHERE id = @sid)`,
      { sid, task: taskId, started },
    );
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
      db.run(
        'INSERT INTO ralph_mcp_comment_meta (signal_id, author, discipline, agent_task_id, priority) VALUES (?, ?, ?, ?, ?)',
        signal,
        c.author,
        c.discipline,
        c.agent_task_id,
        c.priority,
      );
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
    db.run(
      'INSERT INTO ralph_mcp_comment_meta (signal_id, author, discipline, agent_task_id, priority) VALUES (?, ?, ?, ?, ?)',
      signal,
      c.author,
      c.discipline,
      c.agent_task_id,
      c.priority,
    );
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

  for (const r of plan.own.meta)
    db.run('INSERT OR REPLACE INTO ralph_mcp_meta (key, value) VALUES (?, ?)', r.key, r.value);
  for (const r of plan.own.audit) {
    db.run(
      'INSERT INTO ralph_mcp_audit (id, session_id, recipe, discipline, task_id, tool, arguments, outcome, created) VALUES (@id, @session_id, @recipe, @discipline, @task_id, @tool, @arguments, @outcome, @created)',
      pick(r, ['id', 'session_id', 'recipe', 'discipline', 'task_id', 'tool', 'arguments', 'outcome', 'created']),
    );
  }
  for (const r of plan.own.signals) {
    db.run(
      'INSERT INTO ralph_mcp_signals (id, session_id, recipe, discipline, task_id, kind, reason, created) VALUES (@id, @session_id, @recipe, @discipline, @task_id, @kind, @reason, @created)',
      pick(r, ['id', 'session_id', 'recipe', 'discipline', 'task_id', 'kind', 'reason', 'created']),
    );
  }
}

/** A ralph_mcp_task_signals row's columns that task_signals has, by the same names. */
const SIGNAL_ROW = ['task_id', 'session_id', 'verb', ...SIGNAL_COLUMNS, 'created'] as const;

/** The named fields of a row, as bound parameters (missing ones as NULL). */
function pick(row: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, row[k] ?? null]));
}
