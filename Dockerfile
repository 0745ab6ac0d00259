# ralph-mcp in a container: the project is mounted at /project, MCP speaks over stdin/stdout.
#   docker build -t ralph-mcp .
#   docker run -i --rm -v "$PWD:/project" ralph-mcp --project /project --recipe yap
# BASE is a build argument so a locally built Node 20 image can stand in where none can be pulled.
# (Not yet verified on a Docker engine; see issue 5.)
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY schema ./schema
COPY scripts ./scripts
COPY test ./test
RUN npm run build && npm prune --omit=dev

FROM ${BASE}
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY package.json README.md LICENSE ./
COPY schema ./schema
RUN ln -s /app/dist/src/cli.js /usr/local/bin/ralph-mcp
USER node
ENTRYPOINT ["ralph-mcp"]
CMD ["--project", "/project"]
