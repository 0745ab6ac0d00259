# ralph-mcp in a container: the project is mounted at /project, MCP speaks over stdin/stdout.
#
#   docker build -t ralph-mcp .
#   docker run -i --rm --user "$(id -u):$(id -g)" -v "$PWD:/project" ralph-mcp --project /project --recipe yap
#
# Two stages. `build` installs the lockfile (better-sqlite3 is compiled by node-gyp: python3, make, g++),
# bundles the server into dist/ralph-mcp.js and prunes to production dependencies. The runtime stage holds
# only dist/ralph-mcp.js and the bundle it loads (dist/ralph-mcp.cjs + map, dist/package.json: dist/ is CommonJS), schema/, package.json, README, LICENSE and node_modules with better-sqlite3.
#
# BUILD_BASE and BASE are build arguments so that locally built Node 20 images can stand in where none can
# be pulled: scripts/docker-base.sh makes ralph-node20-build:local and ralph-node20:local, and
#   docker build --build-arg BUILD_BASE=ralph-node20-build:local --build-arg BASE=ralph-node20:local -t ralph-mcp .
# (scripts/test-docker.sh does all of it and checks the image.) Either BASE must have a user `node`, as the
# official node images do. Plain Dockerfile syntax: works with the classic builder and BuildKit alike.
ARG BUILD_BASE=node:20-bookworm
ARG BASE=node:20-bookworm-slim

FROM ${BUILD_BASE} AS build
WORKDIR /app
# The test tools (the workspace test/tools) are left out: the image only builds and serves.
COPY package.json package-lock.json ./
COPY test/tools/package.json ./test/tools/
# The prepare script builds; here the sources come next, and the build after them.
RUN RALPH_MCP_SKIP_PREPARE=1 npm ci --workspaces=false --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY schema ./schema
COPY src ./src
COPY scripts ./scripts
# Prune to production dependencies (npm leaves the emptied @scope folders behind: removed too). better-sqlite3
# needs only lib/ and its compiled addon at run time: its SQLite sources and object files go.
RUN npm run build \
 && npm prune --omit=dev --workspaces=false --no-audit --no-fund \
 && find node_modules -mindepth 1 -maxdepth 1 -type d -empty -delete \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/Release/obj build/Release/obj.target build/Release/.deps build/Release/test_extension.node build/Release/sqlite3.a \
      build/deps build/*.mk build/Makefile build/config.gypi build/binding.Makefile \
 && node -e "require('/app/node_modules/better-sqlite3')(':memory:').close()"

FROM ${BASE}
ENV NODE_ENV=production \
    RALPH_PROJECT=/project
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/ralph-mcp.js /app/dist/ralph-mcp.cjs /app/dist/ralph-mcp.cjs.map /app/dist/package.json ./dist/
COPY package.json README.md LICENSE ./
COPY schema ./schema
RUN ln -s /app/dist/ralph-mcp.js /usr/local/bin/ralph-mcp \
 && mkdir -p /project && chown node:node /project \
 && ralph-mcp --version
# Non-root. The mounted project must be writable by the container's user: pass --user "$(id -u):$(id -g)"
# so the database files stay the host user's (the default user is node, uid 1000).
USER node
WORKDIR /project
ENTRYPOINT ["ralph-mcp"]
# No arguments: print the usage. Arguments after the image name replace this, e.g. `--project /project
# --recipe yap`, `init --project /project`, `doctor --project /project` (--project defaults to /project).
CMD ["--help"]
