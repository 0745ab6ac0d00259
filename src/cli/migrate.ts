import { locateProject } from '../domain/project.js';
import { migrateDatabase } from '../store/migrate/index.js';

/** `ralph-mcp migrate`: a legacy project's database moved to the schema Ralph opens today. */
export function migrateProject(projectDir: string, dbOverride?: string): string {
  const project = locateProject(projectDir, dbOverride);
  const r = migrateDatabase(project.dbPath);
  if (!r.migrated) return r.reason;
  const c = r.counts;
  return [
    `migrated ${project.dbPath} to Ralph's normalized schema`,
    `  ${c.tasks} tasks (${c.dependencies} dependencies, ${c.criteria} criteria, ${c.tags} tags, ${c.context_files} context files, ${c.output_artifacts} artifacts), ${c.comments} comments`,
    `  ${c.features} features (subsystems) with ${c.learnings} learnings, ${c.disciplines} disciplines with ${c.skills} skills`,
    ...r.notes.map((n) => `  note: ${n}`),
    `the original is kept, unchanged, as ${r.backup}`,
  ].join('\n');
}
