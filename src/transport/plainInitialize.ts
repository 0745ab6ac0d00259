/**
 * The `initialize` requests clients send, recognised by hand: every request this accepts, the SDK's
 * InitializeRequestSchema accepts too (test/unit/plainInitialize.test.ts checks it against the schema),
 * and the SDK's answer to it depends only on its protocolVersion. Anything else — `_meta`, icons, task
 * capabilities, a member this does not know — is left to the SDK's schema, which words what is wrong.
 */

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether every member of `v` is one of `names`. */
const onlyMembers = (v: Record<string, unknown>, names: readonly string[]): boolean => {
  for (const k in v) if (!names.includes(k)) return false;
  return true;
};

const absentOr = (v: unknown, ok: (v: unknown) => boolean): boolean => v === undefined || ok(v);
const isString = (v: unknown): boolean => typeof v === 'string';
const isBoolean = (v: unknown): boolean => typeof v === 'boolean';

/** An object of objects: `experimental` and `extensions`. */
const objectOfObjects = (v: unknown): boolean => isPlainObject(v) && Object.values(v).every(isPlainObject);

/** ImplementationSchema: a name and a version, and optionally a title, a website and a description. */
function isPlainImplementation(v: unknown): boolean {
  if (!isPlainObject(v) || !onlyMembers(v, ['name', 'version', 'title', 'websiteUrl', 'description'])) return false;
  return (
    isString(v.name) &&
    isString(v.version) &&
    absentOr(v.title, isString) &&
    absentOr(v.websiteUrl, isString) &&
    absentOr(v.description, isString)
  );
}

/** ElicitationCapabilitySchema: `{}`, or a form (applyDefaults a boolean) and a url, each an object. */
function isPlainElicitation(v: unknown): boolean {
  if (!isPlainObject(v) || !onlyMembers(v, ['form', 'url'])) return false;
  const { form, url } = v;
  if (form !== undefined && !(isPlainObject(form) && onlyMembers(form, ['applyDefaults']))) return false;
  return (
    absentOr((form as { applyDefaults?: unknown } | undefined)?.applyDefaults, isBoolean) &&
    absentOr(url, isPlainObject)
  );
}

/** ClientCapabilitiesSchema, without `tasks`. */
function isPlainCapabilities(v: unknown): boolean {
  if (!isPlainObject(v) || !onlyMembers(v, ['experimental', 'sampling', 'elicitation', 'roots', 'extensions']))
    return false;
  const { experimental, sampling, elicitation, roots, extensions } = v;
  const samplingOk = (s: unknown) =>
    isPlainObject(s) &&
    onlyMembers(s, ['context', 'tools']) &&
    absentOr(s.context, isPlainObject) &&
    absentOr(s.tools, isPlainObject);
  const rootsOk = (r: unknown) =>
    isPlainObject(r) && onlyMembers(r, ['listChanged']) && absentOr(r.listChanged, isBoolean);
  return (
    absentOr(experimental, objectOfObjects) &&
    absentOr(extensions, objectOfObjects) &&
    absentOr(sampling, samplingOk) &&
    absentOr(roots, rootsOk) &&
    absentOr(elicitation, isPlainElicitation)
  );
}

/**
 * Whether `message` (a JSON-RPC request already read as one: jsonrpc, id, method and plain params) is
 * an `initialize` of that plain form: a protocolVersion, the capabilities and the clientInfo, nothing else.
 */
export function isPlainInitialize(message: unknown): boolean {
  const m = message as { method?: unknown; params?: unknown };
  if (m.method !== 'initialize' || !isPlainObject(m.params)) return false;
  const p = m.params;
  return (
    onlyMembers(p, ['protocolVersion', 'capabilities', 'clientInfo']) &&
    isString(p.protocolVersion) &&
    isPlainCapabilities(p.capabilities) &&
    isPlainImplementation(p.clientInfo)
  );
}
