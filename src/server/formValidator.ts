import type {
  JsonSchemaType,
  JsonSchemaValidatorResult,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';

/**
 * The SDK Server checks an accepted elicitation answer against the form it sent. Its default checker
 * (ajv) is left out of the bundle (about 35 ms of every start: scripts/serverBuild.mjs), so the Server
 * is given this one: it reads exactly what our forms use (server/askInClient.ts: required fields, text
 * with an enum or a length range). The answer is checked again, as `ralph-mcp answer` checks it, before
 * anything is written.
 */
export const formValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    return (input: unknown): JsonSchemaValidatorResult<T> => {
      const problem = formProblem(schema, input);
      return problem === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: problem };
    };
  },
};

interface TextField {
  type?: unknown;
  enum?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
}

function formProblem(schema: JsonSchemaType, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return 'the answer must be an object';
  const content = input as Record<string, unknown>;
  for (const key of (schema.required as string[] | undefined) ?? [])
    if (!Object.hasOwn(content, key)) return `${key}: required`;
  const properties = (schema.properties ?? {}) as Record<string, TextField>;
  for (const [key, field] of Object.entries(properties)) {
    if (!Object.hasOwn(content, key)) continue;
    const problem = fieldProblem(field, content[key]);
    if (problem !== undefined) return `${key}: ${problem}`;
  }
  return undefined;
}

function fieldProblem(field: TextField, value: unknown): string | undefined {
  // Only text fields are ever asked for; anything else in a form is not ours to accept.
  if (field.type !== 'string') return 'not a field this server asks for';
  if (typeof value !== 'string') return 'must be text';
  if (Array.isArray(field.enum) && !field.enum.includes(value)) return 'must be one of the options offered';
  if (typeof field.minLength === 'number' && value.length < field.minLength)
    return `must be at least ${field.minLength} characters`;
  if (typeof field.maxLength === 'number' && value.length > field.maxLength)
    return `must be at most ${field.maxLength} characters`;
  return undefined;
}
