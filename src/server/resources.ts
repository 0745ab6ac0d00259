import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { dataJson } from '../domain/quote.js';
import { ToolError } from '../domain/errors.js';
import type { Session } from '../session/session.js';
import type { RalphStore } from '../store/store.js';
import { handle } from './handle.js';
import {
  MAX_SUBSCRIPTIONS_PER_SERVER,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  watcherFor,
  type Notify,
  type SubscribeRefusal,
} from './watch.js';

/**
 * Read-only resources, in every recipe (SPEC-070 "Resources"): they change nothing, so filtering
 * them would only hide context.
 */
const PAGE = 100;
const JSON_TYPE = 'application/json';

const FIXED: Resource[] = [
  { uri: 'ralph://project', name: 'project', title: 'Project info and progress', mimeType: JSON_TYPE },
  { uri: 'ralph://progress', name: 'progress', title: '.ralph/progress.txt', mimeType: JSON_TYPE },
  { uri: 'ralph://learnings', name: 'learnings', title: '.ralph/learnings.txt', mimeType: JSON_TYPE },
];

export const TEMPLATES = [
  {
    uriTemplate: 'ralph://tasks/{id}',
    name: 'task',
    title: 'A task with its comments and dependencies',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'ralph://features/{name}',
    name: 'feature',
    title: 'A feature with its knowledge (every category, learnings among them) and context files',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'ralph://disciplines/{name}',
    name: 'discipline',
    title: 'A discipline: persona, skills, conventions',
    mimeType: JSON_TYPE,
  },
];

const notFound = (uri: string, why: string) =>
  Object.assign(new Error(`Resource not found: ${uri} (${why})`), { code: ErrorCode.InvalidParams, data: { uri } });

/** A subscription past a cap (watch.ts): refused, saying which cap and what to do. */
function subscriptionCap(uri: string, cap: SubscribeRefusal): Error {
  const message =
    cap === 'session'
      ? `Subscription refused: ${uri}: this session already holds ${MAX_SUBSCRIPTIONS_PER_SESSION} subscriptions, the most one session may; unsubscribe from some, or subscribe to ralph://project for progress`
      : `Subscription refused: ${uri}: this server's sessions already hold ${MAX_SUBSCRIPTIONS_PER_SERVER} subscriptions, the most one server may; unsubscribe from some, or read the resource again instead`;
  const limit = cap === 'session' ? MAX_SUBSCRIPTIONS_PER_SESSION : MAX_SUBSCRIPTIONS_PER_SERVER;
  return Object.assign(new Error(message), { code: ErrorCode.InvalidRequest, data: { uri, cap, limit } });
}

/**
 * resources/list: one list over fixed resources, then tasks, features and disciplines; the cursor is an
 * offset. Also answered before the SDK's Server exists (transport/sdkOnDemand.ts).
 */
export function listPage(
  store: RalphStore,
  cursor: string | undefined,
): { resources: Resource[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw Object.assign(new Error(`Invalid cursor: ${cursor}`), { code: ErrorCode.InvalidParams });
  const rows = store.project.resourcePage(Math.max(0, offset - FIXED.length), PAGE + 1);
  const fixed = offset < FIXED.length ? FIXED.slice(offset) : [];
  const room = PAGE - fixed.length;
  const page = rows.slice(0, room).map(
    (r): Resource => ({
      uri: `ralph://${r.kind}/${encodeURIComponent(r.key)}`,
      name: `${r.kind.slice(0, -1)} ${r.key}`,
      title: r.title,
      mimeType: JSON_TYPE,
    }),
  );
  const resources = [...fixed, ...page];
  return rows.length > room ? { resources, nextCursor: String(offset + resources.length) } : { resources };
}

/**
 * A state file as the read_* tools return it (`{file, content, entry_count, …, truncated?}`): agents
 * append to these files, so their text is served as a JSON string, data like every other resource's,
 * never as bare text (docs/agent-text.md). A refusal is a JSON-RPC error carrying the tool error's code.
 */
function stateFile(session: Session, tool: 'read_progress' | 'read_learnings'): unknown {
  try {
    return session.read(tool, {});
  } catch (err) {
    if (err instanceof ToolError)
      throw Object.assign(new Error(err.message), {
        code: ErrorCode.InternalError,
        data: { code: err.code, ...err.details },
      });
    throw err;
  }
}

function read(session: Session, uri: string): { uri: string; mimeType: string; text: string } {
  // dataJson: the same JSON, with no backtick or line separator raw, so that a client pasting it into a
  // Markdown fence cannot have it closed from inside.
  const json = (v: unknown) => ({ uri, mimeType: JSON_TYPE, text: dataJson(v) });
  if (uri === 'ralph://project')
    return json(
      // Both reads from one snapshot, as one answer.
      session.store.read(() => ({
        ...(session.read('get_project_info', {}) as object),
        progress: session.read('get_project_progress', {}),
      })),
    );
  if (uri === 'ralph://progress') return json(stateFile(session, 'read_progress'));
  if (uri === 'ralph://learnings') return json(stateFile(session, 'read_learnings'));
  const r = rowResource(uri);
  try {
    if (r.kind === 'tasks') return json(session.read('get_task', { id: r.id }));
    if (r.kind === 'features') return json(session.read('get_feature', { name: r.name }));
    return json(session.read('get_discipline', { name: r.name }));
  } catch (err) {
    if (err instanceof ToolError && err.code === 'not_found') throw notFound(uri, err.message);
    throw err;
  }
}

/** A subscribable resource's key: the project, or a task, feature or discipline named as `read` takes it. */
type Watchable =
  | { kind: 'project' }
  | { kind: 'tasks'; id: number }
  | { kind: 'features' | 'disciplines'; name: string };

function watchable(uri: string): Watchable {
  if (uri === 'ralph://project') return { kind: 'project' };
  if (uri === 'ralph://progress' || uri === 'ralph://learnings') {
    throw Object.assign(
      new Error(
        `${uri} is a state file and cannot be subscribed to (only ralph://project, ralph://tasks/{id}, ralph://features/{name} and ralph://disciplines/{name} can); read it again instead`,
      ),
      {
        code: ErrorCode.InvalidParams,
        data: { uri },
      },
    );
  }
  return rowResource(uri);
}

/** ralph://tasks/{id}, ralph://features/{name} or ralph://disciplines/{name}, parsed; anything else is not found. */
function rowResource(uri: string): Exclude<Watchable, { kind: 'project' }> {
  const m = /^ralph:\/\/(tasks|features|disciplines)\/([^/]+)$/.exec(uri);
  if (!m) throw notFound(uri, 'not a ralph:// resource; see resources/list and resources/templates/list');
  let key: string;
  try {
    key = decodeURIComponent(m[2]!);
  } catch {
    throw notFound(uri, 'malformed percent-encoding');
  }
  if (m[1] === 'tasks') {
    if (!/^\d{1,15}$/.test(key)) throw notFound(uri, 'task ids are positive integers');
    return { kind: 'tasks', id: Number(key) };
  }
  return { kind: m[1] as 'features' | 'disciplines', name: key };
}

/**
 * What a subscription compares: a value that changes when the resource's content would; null when the
 * resource does not exist (a deletion is a change).
 */
/**
 * The one key a subscribable resource is watched under, whatever spelling `read` accepted: the uri
 * resources/list gives it (`ralph://tasks/05` and `ralph://tasks/%35` are `ralph://tasks/5`).
 */
export function canonicalUri(uri: string): string {
  const w = watchable(uri);
  if (w.kind === 'project') return 'ralph://project';
  if (w.kind === 'tasks') return `ralph://tasks/${w.id}`;
  return `ralph://${w.kind}/${encodeURIComponent(w.name)}`;
}

export function resourceFingerprint(store: RalphStore, uri: string): string | null {
  const w = watchable(uri);
  switch (w.kind) {
    case 'project':
      return JSON.stringify([store.project.projectInfo(), store.tasks.progressGroups()]);
    case 'tasks':
      return store.watch.taskFingerprint(w.id);
    case 'features': {
      const name = store.features.featureName(w.name);
      // Knowledge of the other categories is served with the feature but kept apart from its row.
      return name === undefined
        ? null
        : JSON.stringify([store.features.getFeature(name) ?? null, store.features.knowledge(name)]);
    }
    case 'disciplines': {
      const name = store.disciplines.disciplineName(w.name);
      return name === undefined
        ? null
        : JSON.stringify([
            store.disciplines.getDiscipline(name) ?? null,
            store.disciplines.toolOverrides(name) ?? null,
          ]);
    }
  }
}

export function registerResources(server: Server, session: Session, projectWork: () => void, processLog: Logger): void {
  const { store, log } = session.ctx;
  handle(server, ListResourcesRequestSchema, (req) => {
    projectWork();
    return listPage(store, req.params?.cursor);
  });
  handle(server, ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: TEMPLATES }));
  handle(server, ReadResourceRequestSchema, (req) => {
    projectWork();
    return { contents: [read(session, req.params.uri)] };
  });

  // Subscriptions: this session's, in the process's one watcher (watch.ts); gone when the session closes.
  // The watcher outlives any one session: it logs to the server's log, never to one session's client.
  const watcher = watcherFor(store, (uri) => resourceFingerprint(store, uri), processLog);
  // The notification carries the uri as this session subscribed with it: what the spec has clients match.
  const notify: Notify = (uri) => {
    server
      .sendResourceUpdated({ uri })
      .catch((err: unknown) => log.debug({ err, uri }, 'could not send notifications/resources/updated'));
  };
  handle(server, SubscribeRequestSchema, (req) => {
    const { uri } = req.params;
    const key = canonicalUri(uri);
    if (resourceFingerprint(store, key) === null) throw notFound(uri, 'no such task, feature or discipline');
    const refused = watcher.subscribe(key, notify, uri);
    if (refused) throw subscriptionCap(uri, refused);
    return {};
  });
  handle(server, UnsubscribeRequestSchema, (req) => {
    let key: string;
    try {
      key = canonicalUri(req.params.uri);
    } catch {
      return {}; // never subscribable, so not subscribed: nothing to do
    }
    watcher.unsubscribe(key, notify);
    return {};
  });
  const closed = server.onclose;
  server.onclose = () => {
    watcher.unsubscribeAll(notify);
    closed?.();
  };
}
