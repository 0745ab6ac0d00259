import Database from 'better-sqlite3';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Ralph's local API (src-tauri/src/api_server.rs at Ralph's head), on 127.0.0.1, for
 * tests of the forwarding mode. It records every request exactly as received. By default it answers
 * as Ralph's app does and, given a database, writes the signal the way Ralph's own code does
 * (crates/sqlite-db/src/signals.rs: insert_<verb>_signal and ensure_agent_session_exists), written
 * out here from Ralph's source, not from ours; `answer` can replace any reply (errors, plain text).
 */

export interface Recorded {
  method: string;
  path: string;
  contentType: string | undefined;
  body: any;
}

export interface StandIn {
  port: number;
  requests: Recorded[];
  close(): Promise<void>;
}

type Answer = { status: number; body: string; contentType?: string; headers?: Record<string, string> };

export async function startRalphApi(
  opts: { dbPath?: string; answer?: (r: Recorded) => Answer | undefined } = {},
): Promise<StandIn> {
  const requests: Recorded[] = [];
  let dbPath: string | null = null;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* recorded as text */
      }
      const r: Recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        body,
      };
      requests.push(r);
      const a = opts.answer?.(r) ?? ralph(r);
      res.writeHead(a.status, { 'content-type': a.contentType ?? 'application/json', ...a.headers });
      res.end(a.body);
    });
  });

  /** What Ralph's app does with a request. */
  function ralph(r: Recorded): Answer {
    const json = (status: number, v: unknown): Answer => ({ status, body: JSON.stringify(v) });
    if (r.path === '/api/set-db-path') {
      if (typeof r.body?.db_path !== 'string')
        return { status: 400, body: 'Missing db_path', contentType: 'text/plain' };
      dbPath = r.body.db_path;
      return { status: 200, body: 'Database path set', contentType: 'text/plain' };
    }
    if (r.path === '/api/task-signal') {
      if (typeof r.body !== 'object' || typeof r.body.task_id !== 'number')
        return {
          status: 422,
          body: 'Failed to deserialize the JSON body into the target type',
          contentType: 'text/plain',
        };
      if (dbPath === null) return json(503, { error: 'Database path not set' });
      if (opts.dbPath === undefined) return json(200, { success: true, verb: r.body.verb });
      try {
        insertSignal(opts.dbPath, r.body);
      } catch (err) {
        return json(500, { error: `Failed to insert signal: ${(err as Error).message}` });
      }
      return json(200, { success: true, verb: r.body.verb });
    }
    return { status: 404, body: '', contentType: 'text/plain' };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'); // chrono "%Y-%m-%dT%H:%M:%SZ"

type Payload = Record<string, any>;
const need = (k: string) => (p: Payload) => {
  if (typeof p[k] !== 'string') throw new Error(`Missing ${k}`);
  return p[k] as string;
};
const nonEmpty = (k: string) => (p: Payload) => {
  const v = need(k)(p);
  if (v.trim() === '') throw new Error(`${k} cannot be empty`);
  return v.trim();
};
const opt = (k: string) => (p: Payload) => (typeof p[k] === 'string' ? (p[k] as string) : null);

/** Per verb, the task_signals columns its insert_<verb>_signal fills from the payload, checked in this order. */
const SIGNAL_COLUMNS: Record<string, Record<string, (p: Payload) => unknown>> = {
  done: { summary: nonEmpty('summary') },
  partial: { summary: nonEmpty('summary'), remaining: nonEmpty('remaining') },
  stuck: { reason: nonEmpty('reason') },
  ask: {
    question: nonEmpty('question'),
    options: (p) => (Array.isArray(p.options) ? p.options.filter((o) => typeof o === 'string').join('\n') : null),
    preferred: opt('preferred'),
    blocking: (p) => (p.blocking === true ? 1 : 0),
  },
  flag: { what: nonEmpty('what'), severity: need('severity'), category: need('category') },
  learned: {
    text: nonEmpty('text'),
    kind: need('kind'),
    scope: (p) => opt('scope')(p) ?? 'feature',
    rationale: opt('rationale'),
  },
  suggest: { what: nonEmpty('what'), kind: need('kind'), why: nonEmpty('why') },
  blocked: { on: nonEmpty('on'), kind: need('kind'), detail: opt('detail') },
};

/** Ralph's insert_<verb>_signal, one transaction per call as its connection autocommits each statement. */
function insertSignal(
  path: string,
  req: { task_id: number; session_id: string; verb: string; payload: Payload },
): void {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const exists = db.prepare('SELECT COUNT(*) > 0 AS x FROM agent_sessions WHERE id = ?').get(req.session_id) as {
      x: number;
    };
    const t = now();
    if (!exists.x) {
      db.prepare(
        "INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status) VALUES (?, (SELECT COALESCE(MAX(session_number), 0) + 1 FROM agent_sessions), 'task_execution', 'agent', ?, ?, ?, 'finished')",
      ).run(req.session_id, req.task_id, t, t);
    }
    if (!Object.hasOwn(SIGNAL_COLUMNS, req.verb)) throw new Error(`Unknown verb: ${req.verb}`);
    const columns = Object.entries(SIGNAL_COLUMNS[req.verb]!);
    const values = columns.map(([, read]) => read(req.payload ?? {}));
    const names = columns.map(([name]) => `, "${name}"`).join('');
    db.prepare(
      `INSERT INTO task_signals (task_id, session_id, verb${names}, created) VALUES (?, ?, ?${', ?'.repeat(columns.length)}, ?)`,
    ).run(req.task_id, req.session_id, req.verb, ...values, t);
  } finally {
    db.close();
  }
}
