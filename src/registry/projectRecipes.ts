import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readWholeInProject, UnsafeFileError } from '../domain/safeOpen.js';
import { StartupError } from '../domain/errors.js';
import { schemaText } from '../domain/packageInfo.js';
import type { Project } from '../domain/project.js';
import { unknownNames } from './enabled.js';
import { RECIPES, type Recipe } from './recipes.js';
import { TOOL_NAMES } from './registry.js';

/**
 * Project recipes: `.ralph/mcp/recipes.json` (schema/recipes.schema.json) defines new recipes and narrows
 * built-in ones, without a rebuild. Fails closed on anything it cannot honour exactly: a malformed file,
 * an unknown tool, a built-in recipe widened.
 */
export const recipesFile = (project: Project): string => join(project.ralphDir, 'mcp', 'recipes.json');

/** A recipes file is a few KiB; more than this is not a recipes file (and is not read into memory). */
export const MAX_RECIPES_BYTES = 1024 * 1024;

interface RecipeSpec {
  purpose?: string;
  allow?: string[];
  disable?: string[];
}

export function loadRecipes(project: Project): readonly Recipe[] {
  const file = recipesFile(project);
  // Opened like the state files (safeOpen): a link, FIFO or directory in its place, or a `.ralph/mcp` that
  // leads out of the project, fails the launch instead of being followed or blocking it.
  let text: string | undefined;
  try {
    text = readWholeInProject(project.root, file, MAX_RECIPES_BYTES);
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new StartupError(`${file}: refused: it ${err.problem}`);
    throw new StartupError(`${file}: could not be read (${(err as Error).message})`);
  }
  if (text === undefined) return RECIPES;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new StartupError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  validateShape(file, doc);
  const specs = (doc as { recipes: Record<string, RecipeSpec> }).recipes;
  const out = new Map(RECIPES.map((r) => [r.name, r]));
  for (const [name, spec] of Object.entries(specs)) {
    const where = `${file}: recipes.${name}`;
    for (const field of ['allow', 'disable'] as const) {
      const unknown = unknownNames(TOOL_NAMES, spec[field] ?? []);
      if (unknown.length)
        throw new StartupError(
          `${where}.${field} names unknown tool(s): ${unknown.join(', ')} (\`ralph-mcp tools\` lists them)`,
        );
    }
    if (name === 'task_brief' || name === 'full_suite')
      throw new StartupError(`${where}: the name ${name} is reserved (a built-in prompt)`);
    const builtin = out.get(name);
    if (builtin) {
      const widened = (spec.allow ?? []).filter((t) => !builtin.allow.includes(t));
      if (widened.length)
        throw new StartupError(
          `${where}.allow would widen the built-in recipe with ${widened.join(', ')}; a built-in recipe may only be narrowed`,
        );
      const allow = (spec.allow ?? builtin.allow).filter((t) => !(spec.disable ?? []).includes(t));
      out.set(name, { ...builtin, purpose: spec.purpose ?? builtin.purpose, allow });
    } else {
      if (!spec.allow) throw new StartupError(`${where}: a new recipe must list its tools in "allow"`);
      if (!spec.purpose)
        throw new StartupError(`${where}: a new recipe needs a "purpose" (one sentence for the agent)`);
      out.set(name, {
        name,
        purpose: spec.purpose,
        allow: spec.allow.filter((t) => !(spec.disable ?? []).includes(t)),
      });
    }
  }
  return [...out.values()];
}

/** Checks the document against schema/recipes.schema.json; the first problem names the file and the field. */
function validateShape(file: string, doc: unknown): void {
  // Loaded only when a project has a recipes.json. In the bundle, esbuild resolves this literal
  // require() to its bundled copy of ajv; tsc's ESM output (the unit tests) has no global require.
  const Ajv2020 = (
    typeof require === 'function' ? require('ajv/dist/2020.js') : createRequire(import.meta.url)('ajv/dist/2020.js')
  ) as {
    default: new (o: object) => { compile: (s: object) => ValidateFn };
  };
  const validate = new Ajv2020.default({ allErrors: true, strict: false }).compile(
    JSON.parse(schemaText('recipes.schema.json')),
  );
  if (!validate(doc)) {
    const e = validate.errors![0]!;
    const at = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '(top level)';
    const extra = e.params?.additionalProperty ? ` ${JSON.stringify(e.params.additionalProperty)}` : '';
    throw new StartupError(`${file}: ${at}: ${e.message}${extra} (see schema/recipes.schema.json)`);
  }
}

type ValidateFn = ((d: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params?: Record<string, unknown> }[] | null;
};
