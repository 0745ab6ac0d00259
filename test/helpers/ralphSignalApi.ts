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

/** Ralph's insert_<verb>_signal, one transaction per call as its connection autocommits each statement. */
function insertSignal(
  path: string,
  req: { task_id: number; session_id: string; verb: string; payload: Record<string, any> },
): void {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const p = req.payload ?? {};
    const str = (k: string) => {
      if (typeof p[k] !== 'string') throw new Error(`Missing ${k}`);
      return p[k] as string;
    };
    const opt = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : null);
    const nonEmpty = (k: string) => {
      const v = str(k);
      if (v.trim() === '') throw new Error(`${k} cannot be empty`);
      return v.trim();
    };
    const exists = db.prepare('SELECT COUNT(*) > 0 AS x FROM agent_sessions WHERE id = ?').get(req.session_id) as {
      x: number;
    };
    const t = now();
    if (!exists.x) {
      db.prepare(
        "INSERT INTO agent_sessions (id, session_number, kind, started_by, task_id, started, ended, status) VALUES (?, (SELECT COALESCE(MAX(session_number), 0) + 1 FROM agent_sessions), 'task_execution', 'agent', ?, ?, ?, 'finished')",
      ).run(req.session_id, req.task_id, t, t);
    }
    const base = [req.task_id, req.session_id];
    switch (req.verb) {
      case 'done':
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, summary, created) VALUES (?, ?, 'done', ?, ?)",
        ).run(...base, nonEmpty('summary'), t);
        break;
      case 'partial':
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, summary, remaining, created) VALUES (?, ?, 'partial', ?, ?, ?)",
        ).run(...base, nonEmpty('summary'), nonEmpty('remaining'), t);
        break;
      case 'stuck':
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, reason, created) VALUES (?, ?, 'stuck', ?, ?)",
        ).run(...base, nonEmpty('reason'), t);
        break;
      case 'ask': {
        const options = Array.isArray(p.options)
          ? p.options.filter((o: unknown) => typeof o === 'string').join('\n')
          : null;
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, question, options, preferred, blocking, created) VALUES (?, ?, 'ask', ?, ?, ?, ?, ?)",
        ).run(...base, nonEmpty('question'), options, opt('preferred'), p.blocking === true ? 1 : 0, t);
        break;
      }
      case 'flag':
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, what, severity, category, created) VALUES (?, ?, 'flag', ?, ?, ?, ?)",
        ).run(...base, nonEmpty('what'), str('severity'), str('category'), t);
        break;
      case 'learned':
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, text, kind, scope, rationale, created) VALUES (?, ?, 'learned', ?, ?, ?, ?, ?)",
        ).run(...base, nonEmpty('text'), str('kind'), opt('scope') ?? 'feature', opt('rationale'), t);
        break;
      case 'suggest':
        db.prepare(
          "INSERT INTO task_signals (task_id, session_id, verb, what, kind, why, created) VALUES (?, ?, 'suggest', ?, ?, ?, ?)",
        ).run(...base, nonEmpty('what'), str('kind'), nonEmpty('why'), t);
        break;
      case 'blocked':
        db.prepare(
          'INSERT INTO task_signals (task_id, session_id, verb, "on", kind, detail, created) VALUES (?, ?, \'blocked\', ?, ?, ?, ?)',
        ).run(...base, nonEmpty('on'), str('kind'), opt('detail'), t);
        break;
      default:
        throw new Error(`Unknown verb: ${req.verb}`);
    }
  } finally {
    db.close();
  }
}
