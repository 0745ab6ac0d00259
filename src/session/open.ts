import { locateProject } from '../project.js';
import { loadRecipes } from '../registry/projectRecipes.js';
import { openStore } from '../store/open.js';
import type { RalphStore } from '../store/store.js';
import { mergeContextFile } from './contextFile.js';
import { buildSessionPlan, type SessionPlan, type SessionRequest } from './plan.js';

export interface SessionOptions extends SessionRequest {
  project: string;
  db?: string | undefined;
  /** SPEC-070 context.json; flags beside it must agree with it. */
  context?: string | undefined;
}

/**
 * Flags → open project → session plan: the one code path behind `serve`, `plan` and `config`, so what
 * Ralph is told a session will have is exactly what the session gets.
 */
export function openSession(opts: SessionOptions): { store: RalphStore; plan: SessionPlan } {
  // --context FILE may live anywhere, not only in the project: Ralph writes it (typically in a temp
  // directory, beside the per-session MCP config) and passes it on the command line, like --project and
  // --db. It is the operator's input, never the agent's: no tool takes a path to it, and nothing in it
  // is a path (its fields are names, a task id and tool names, all checked against the database and the
  // registry), so it cannot be used to reach files. Paths an agent gives are checked by domain/paths.ts.
  const request = opts.context ? mergeContextFile(opts.context, opts) : opts;
  const project = locateProject(opts.project, opts.db);
  const recipes = loadRecipes(project);
  const { store, schema } = openStore(project.dbPath);
  try {
    return { store, plan: buildSessionPlan(project, store, schema, request, recipes) };
  } catch (err) {
    store.close();
    throw err;
  }
}
