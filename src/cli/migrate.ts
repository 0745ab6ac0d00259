import v8 from 'node:v8';
import { locateProject } from '../domain/project.js';
import { cleanedLine, migrateDatabase, type CompletedFrom } from '../store/migrate/index.js';

/**
 * A migration is seconds of batch work: it runs under V8's defaults (TurboFan on, the young generation
 * growing), which the launcher turns off for a session's start-up until its first request
 * (src/startup/v8Flags.ts SERVING_FLAGS). Under the start-up flags it took ~45% longer at 100,000 tasks.
 */
export function useBatchDefaults(): void {
  for (const flag of ['--turbofan', '--semi-space-growth-factor=2']) {
    try {
      v8.setFlagsFromString(flag);
    } catch {
      // a runtime without V8 flags keeps its own defaults
    }
  }
}

/** `ralph-mcp migrate`: a legacy project's database moved to the schema Ralph opens today. */
export function migrateProject(projectDir: string, dbOverride?: string, completedFrom?: CompletedFrom): string {
  const project = locateProject(projectDir, dbOverride);
  const r = migrateDatabase(project.dbPath, { completedFrom });
  const cleaned = r.cleaned.length ? [cleanedLine(r.cleaned)] : [];
  if (!r.migrated) return [r.reason, ...cleaned].join('\n');
  const c = r.counts;
  return [
    `migrated ${project.dbPath} to Ralph's normalized schema`,
    `  ${c.tasks} tasks (${c.dependencies} dependencies, ${c.criteria} criteria, ${c.tags} tags, ${c.context_files} context files, ${c.output_artifacts} artifacts), ${c.comments} comments`,
    `  ${c.features} features (subsystems) with ${c.learnings} learnings and ${c.knowledge} other knowledge entries, ${c.disciplines} disciplines with ${c.skills} skills`,
    ...r.carried.map((line) => `  ${line}`),
    `  ${completedLine(r.completed, r.auditId)}`,
    ...r.notes.map((n) => `  note: ${n}`),
    `the original is kept, unchanged, as ${r.backup}`,
    ...cleaned,
  ].join('\n');
}

function completedLine(
  completed: { from: CompletedFrom; values: ReadonlyMap<number, string> } | null,
  auditId: number | null,
): string {
  if (!completed) return 'completed dates: every done task had one';
  const where = `recorded in ralph_mcp_audit row ${auditId}`;
  const ids = [...completed.values.keys()];
  if (ids.length === 0)
    return `completed dates: every done task had one; --completed-from ${completed.from} filled none (${where})`;
  const listed = ids.slice(0, 20).join(', ') + (ids.length > 20 ? ', …' : '');
  return (
    `completed dates: ${ids.length} done task(s) had none and took it from --completed-from ${completed.from}: ` +
    `tasks ${listed} (${where}, with every task it filled)`
  );
}
