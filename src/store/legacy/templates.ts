import { ToolError } from '../../domain/errors.js';
import type { TemplateStore } from '../store.js';

/**
 * Ralph's legacy generation (936f316) has no task templates: none to list, none to pull. The template
 * tools exist on the normalized generation only, so this refusal is a guard, not a path agents take.
 */
const none = (): never => {
  throw new ToolError(
    'invalid_argument',
    "this project's database is Ralph's legacy schema, which has no task templates (its normalized schema has them)",
  );
};

export const legacyTemplates = (): TemplateStore => ({
  available: false,
  listTemplates: () => [],
  getTemplate: none,
  createFromTemplate: none,
});
