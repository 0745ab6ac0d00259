#!/usr/bin/env bash
# npm run test:docker — the Docker image, built and used for real:
#   1. a Docker engine answers (else: dockerd is started, installed from Debian's docker.io first if missing);
#   2. the Node 20 base images exist (scripts/docker-base.sh builds them locally: nothing is pulled);
#   3. `docker build` of the Dockerfile with --build-arg BUILD_BASE/BASE;
#   4. the image: runs as non-root, holds no devDependency, --version, usage without arguments;
#   5. `ralph-mcp init` in the container on a temp project, then a real stdio MCP session through
#      `docker run -i --rm -v TMP:/project IMAGE --project /project --recipe yap`: initialize,
#      notifications/initialized, tools/list (= yap's tools in test/helpers/spec.ts), tools/call create_task + get_task, a hidden
#      tool refused like an unknown one; the row is then read from the host with better-sqlite3;
#      `doctor` in the container passes on the result.
# Prints a PASS/FAIL line per check and `docker: N passed, M failed` last; exits non-zero on any failure.
#
# Env: IMAGE (default ralph-mcp), BASE / BUILD_BASE (default the local images from docker-base.sh; set both,
#      e.g. node:20-bookworm-slim / node:20-bookworm, where images can be pulled), DOCKERD_ARGS (extra flags
#      when this script starts dockerd, e.g. "--storage-driver=vfs"), BUILD_NETWORK (docker build --network,
#      e.g. host, if the build's containers cannot reach the npm registry), KEEP_TMP=1 (keep the temp project).
# The engine this script starts keeps running afterwards (log: /tmp/ralph-dockerd.log), so reruns are quick.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
IMAGE=${IMAGE:-ralph-mcp}
LOCAL_BASE=0
if [ -z "${BASE:-}" ] || [ -z "${BUILD_BASE:-}" ]; then LOCAL_BASE=1; fi
BASE=${BASE:-ralph-node20:local}
BUILD_BASE=${BUILD_BASE:-ralph-node20-build:local}

PASSED=0
FAILED=0
say() { printf 'test:docker: %s\n' "$*" >&2; }
pass() { PASSED=$((PASSED + 1)); printf 'PASS %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL %s\n' "$*"; }
finish() {
  if [ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]; then say "PASS"; else say "FAIL"; fi
  echo "docker: $PASSED passed, $FAILED failed"
  [ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
}
abort() { fail "$*"; finish || true; exit 1; }

# The host side of the check reads the database with the checkout's better-sqlite3.
[ -d node_modules/better-sqlite3 ] || abort "node_modules/better-sqlite3 missing: run npm ci first"

# ---- 1. engine ---------------------------------------------------------------------------------------------
ensure_engine() {
  if docker info >/dev/null 2>&1; then return 0; fi
  command -v docker >/dev/null || abort "no docker CLI"
  if ! command -v dockerd >/dev/null; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || abort "no Docker engine answers and dockerd is not installed (apt-get install docker.io)"
    say "installing docker.io (Debian's Docker engine)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >/tmp/ralph-docker-apt.log 2>&1 ||
      { apt-get update -q >>/tmp/ralph-docker-apt.log 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >>/tmp/ralph-docker-apt.log 2>&1; } ||
      abort "apt-get install docker.io failed (/tmp/ralph-docker-apt.log)"
  fi
  [ "$(id -u)" = 0 ] || abort "no Docker engine answers, and starting dockerd needs root"
  say "starting dockerd ${DOCKERD_ARGS:-} (log /tmp/ralph-dockerd.log)"
  # shellcheck disable=SC2086 # DOCKERD_ARGS is a list of flags
  nohup dockerd ${DOCKERD_ARGS:-} >/tmp/ralph-dockerd.log 2>&1 </dev/null &
  echo $! >/tmp/ralph-dockerd.pid
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then return 0; fi
    kill -0 "$(cat /tmp/ralph-dockerd.pid)" 2>/dev/null || break
    sleep 1
  done
  tail -n 20 /tmp/ralph-dockerd.log >&2 || true
  abort "dockerd did not come up (see /tmp/ralph-dockerd.log; DOCKERD_ARGS=--storage-driver=vfs if overlay2 fails)"
}
ensure_engine
pass "engine: $(docker version --format 'server {{.Server.Version}}, storage driver' 2>/dev/null) $(docker info --format '{{.Driver}}' 2>/dev/null)"

# ---- 2. base images ------------------------------------------------------------------------------------------
if [ $LOCAL_BASE = 1 ]; then
  bash scripts/docker-base.sh || abort "base images (scripts/docker-base.sh)"
fi
for img in "$BUILD_BASE" "$BASE"; do
  docker image inspect "$img" >/dev/null 2>&1 || docker pull -q "$img" >/dev/null 2>&1 ||
    abort "base image $img: not present and cannot be pulled"
done
pass "base images $BUILD_BASE, $BASE"

# ---- 3. build ------------------------------------------------------------------------------------------------
say "docker build -t $IMAGE (log /tmp/ralph-docker-build.log)"
t0=$(date +%s)
if ! docker build ${BUILD_NETWORK:+--network "$BUILD_NETWORK"} --build-arg BUILD_BASE="$BUILD_BASE" \
  --build-arg BASE="$BASE" -t "$IMAGE" . >/tmp/ralph-docker-build.log 2>&1; then
  tail -n 40 /tmp/ralph-docker-build.log >&2
  abort "docker build (log /tmp/ralph-docker-build.log)"
fi
pass "docker build in $(($(date +%s) - t0)) s, image $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"

# ---- 4. the image --------------------------------------------------------------------------------------------
user=$(docker image inspect -f '{{.Config.User}}' "$IMAGE")
uid=$(docker run --rm --entrypoint id "$IMAGE" -u)
if [ -n "$user" ] && [ "$uid" != 0 ]; then pass "runs as non-root: USER $user, uid $uid"; else fail "runs as root (USER '$user', uid $uid)"; fi

# Every devDependency of package.json must be absent from /app/node_modules; better-sqlite3 must load.
if out=$(docker run --rm --entrypoint node "$IMAGE" -e '
  const fs = require("fs");
  const pkg = require("/app/package.json");
  const present = Object.keys(pkg.devDependencies || {}).filter((n) => fs.existsSync("/app/node_modules/" + n));
  const top = fs.readdirSync("/app/node_modules").filter((n) => !n.startsWith("."));
  const banned = top.filter((n) => ["typescript", "esbuild", "@esbuild", "@modelcontextprotocol", "@types", "zod", "yargs", "ajv", "pino"].includes(n));
  require("/app/node_modules/better-sqlite3")(":memory:").close();
  if (present.length || banned.length) { console.log("devDependencies in the image: " + [...present, ...banned].join(" ")); process.exit(1); }
  console.log(top.length + " top-level packages, deps: " + Object.keys(pkg.dependencies).join(" "));
' 2>&1); then pass "no devDependencies in /app/node_modules ($out)"; else fail "$out"; fi

want=$(node -p 'require("./package.json").version')
got=$(docker run --rm "$IMAGE" --version 2>&1 || true)
if [ "$got" = "$want" ]; then pass "--version $got"; else fail "--version: '$got', package.json has $want"; fi

if docker run --rm "$IMAGE" 2>&1 | grep -q -- '--recipe'; then pass "no arguments: usage"; else fail "no arguments: no usage printed"; fi

# ---- 5. a project, a session ---------------------------------------------------------------------------------
TMP=$(mktemp -d /tmp/ralph-mcp-docker.XXXXXX)
NAME=ralph-mcp-test-$$
cleanup() {
  docker rm -f "$NAME" >/dev/null 2>&1 || true
  if [ "${KEEP_TMP:-0}" = 1 ]; then say "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
# The mounted project must be writable by the container's user. As root here: give it to the image's own
# user (uid 1000) and run as that user, which tests the non-root default. Otherwise run as the host user,
# the way the README tells people to (--user "$(id -u):$(id -g)": files stay theirs).
RUN_AS=()
if [ "$(id -u)" = 0 ]; then
  OWNER=$uid
  chown "$uid:$uid" "$TMP"
else
  OWNER=$(id -u)
  RUN_AS=(--user "$(id -u):$(id -g)")
fi

if out=$(docker run --rm "${RUN_AS[@]}" -v "$TMP:/project" "$IMAGE" init --project /project --title "Docker test" 2>&1) &&
  [ -f "$TMP/.ralph/db/ralph.db" ] && [ "$(stat -c %u "$TMP/.ralph/db/ralph.db")" = "$OWNER" ]; then
  pass "init in the container: $out (owner uid $OWNER)"
else
  fail "init in the container: $out"
fi

# The session: raw JSON-RPC lines over the container's stdin/stdout, then the row read from the host.
DRIVER=$(
  cat <<'JS'
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const [repo, image, project, name, ...runAs] = process.argv.slice(1);
const require = createRequire(repo + '/package.json');
const Database = require('better-sqlite3');
let failures = 0;
const ok = (m) => console.log('PASS ' + m);
const bad = (m) => { failures++; console.log('FAIL ' + m); };
const check = (cond, m, detail = '') => (cond ? ok(m) : bad(m + (detail ? ': ' + detail : '')));

// yap's tools as the tests' hand-written spec lists them (test/helpers/spec.ts, built by npm run build).
const { RECIPE_TOOLS } = await import(repo + '/dist/test/helpers/spec.js');
const want = [...RECIPE_TOOLS.yap].sort();
const db = new Database(project + '/.ralph/db/ralph.db');
db.prepare("INSERT INTO features (name, display_name, acronym, created) VALUES ('core', 'Core', 'CORE', '2026-01-01')").run();
db.prepare("INSERT INTO disciplines (name, display_name, acronym, icon, color) VALUES ('backend', 'Backend', 'BACK', 'Server', '#000')").run();
db.close();

const args = ['run', '-i', '--rm', '--name', name, '--network', 'none', ...runAs, '-v', project + ':/project', image, '--project', '/project', '--recipe', 'yap'];
console.error('test:docker: docker ' + args.join(' '));
const child = spawn('docker', args, { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (b) => (stderr += b));
const waiting = new Map();
let buf = '';
let junk = [];
child.stdout.on('data', (b) => {
  buf += b;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    let msg;
    try { msg = JSON.parse(line); } catch { junk.push(line); continue; }
    if (msg.jsonrpc !== '2.0') { junk.push(line); continue; }
    if (msg.id !== undefined && waiting.has(msg.id)) { waiting.get(msg.id)(msg); waiting.delete(msg.id); }
  }
});
const exited = new Promise((res) => child.on('exit', (code) => res(code)));
const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
let nextId = 1;
const request = (method, params) => {
  const id = nextId++;
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`${method}: no answer in 60 s`)), 60000);
    waiting.set(id, (m) => { clearTimeout(t); res(m); });
    send({ id, method, params });
  });
};

try {
  const t0 = Date.now();
  const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-docker', version: '0' } });
  check(init.result?.serverInfo?.name === 'ralph-mcp' && init.result?.protocolVersion, `initialize: ${init.result?.serverInfo?.name} ${init.result?.serverInfo?.version}, protocol ${init.result?.protocolVersion}, ${Date.now() - t0} ms after docker run`, JSON.stringify(init));
  send({ method: 'notifications/initialized' });

  const list = await request('tools/list', {});
  const got = (list.result?.tools ?? []).map((t) => t.name).sort();
  check(JSON.stringify(got) === JSON.stringify(want), `tools/list = yap's ${want.length} tools (test/helpers/spec.ts)`, got.join(' '));

  const created = await request('tools/call', { name: 'create_task', arguments: { title: 'Made in Docker', feature: 'core', discipline: 'backend', priority: 'high' } });
  const id = created.result?.structuredContent?.task?.id;
  check(created.result && !created.result.isError && Number.isInteger(id), `tools/call create_task -> task ${id}`, JSON.stringify(created));

  const read = await request('tools/call', { name: 'get_task', arguments: { id } });
  check(read.result?.structuredContent?.task?.title === 'Made in Docker', 'tools/call get_task reads it back', JSON.stringify(read).slice(0, 300));

  const hidden = await request('tools/call', { name: 'create_feature', arguments: { name: 'x' } });
  const unknown = await request('tools/call', { name: 'no_such_tool', arguments: {} });
  const norm = (m) => JSON.stringify(m.error ?? m.result).replaceAll('create_feature', 'X').replaceAll('no_such_tool', 'X');
  check((hidden.error || hidden.result?.isError) && norm(hidden) === norm(unknown), 'create_feature (not in yap) is refused like an unknown tool', JSON.stringify(hidden));

  child.stdin.end();
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30000))]);
  check(code === 0, 'the container exits 0 when stdin closes', String(code));
  check(junk.length === 0, 'stdout held only JSON-RPC', junk.slice(0, 3).join(' | '));

  const ro = new Database(project + '/.ralph/db/ralph.db', { readonly: true });
  const row = ro.prepare('SELECT title, feature, discipline, priority, status FROM tasks WHERE id = ?').get(id);
  ro.close();
  check(row?.title === 'Made in Docker' && row.feature === 'core' && row.discipline === 'backend' && row.priority === 'high',
    `the row is in the host's ${project}/.ralph/db/ralph.db: ${JSON.stringify(row)}`, JSON.stringify(row));
} catch (err) {
  bad(`session: ${err.message}`);
  child.kill();
} finally {
  // The server's log (its stderr): into the driver's log when something failed.
  if (failures) process.stderr.write('--- server stderr ---\n' + stderr);
}
JS
)
session_out=$(node --input-type=module -e "$DRIVER" "$REPO" "$IMAGE" "$TMP" "$NAME" "${RUN_AS[@]}" 2>/tmp/ralph-docker-session.log) || true
printf '%s\n' "$session_out"
PASSED=$((PASSED + $(printf '%s\n' "$session_out" | grep -c '^PASS ' || true)))
FAILED=$((FAILED + $(printf '%s\n' "$session_out" | grep -c '^FAIL ' || true)))
if ! printf '%s\n' "$session_out" | grep -q '^PASS the row is in'; then
  fail "MCP session over docker run -i (driver log: /tmp/ralph-docker-session.log)"
  tail -n 20 /tmp/ralph-docker-session.log >&2 || true
fi

if [ "$(id -u)" = 0 ]; then chown -R "$uid:$uid" "$TMP"; fi
if out=$(docker run --rm "${RUN_AS[@]}" --network none -v "$TMP:/project" "$IMAGE" doctor --project /project 2>&1); then
  pass "doctor in the container: $(printf '%s\n' "$out" | wc -l) checks ok"
else
  fail "doctor in the container: $out"
fi

docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "^($IMAGE(:latest)?|$BASE|$BUILD_BASE) " >&2 || true
finish
