#!/usr/bin/env bash
# What Claude Code shows for a refused launch (not in CI: it installs @anthropic-ai/claude-code, ~200 MB).
# Registers a session with a bad recipe in a throw-away HOME, runs `claude mcp list` with DEBUG=1, and
# prints the debug log's lines about it: the JSON-RPC error our refused launch answers initialize with
# ("MCP error -32000: ralph-mcp refused to start: …"). Needs a build (npm run build) and the npm registry.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm install --prefix "$work/cli" --no-save --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code >/dev/null
mkdir -p "$work/home/project"
cd "$work/home/project"
export HOME="$work/home"
claude="$work/cli/node_modules/.bin/claude"
"$claude" mcp add ralph-refused -- node "$repo/dist/ralph-mcp.js" --project "$work/home/project" --recipe no-such-recipe >/dev/null
DEBUG=1 "$claude" mcp list || true
echo "--- debug log:"
grep -h 'MCP server "ralph-refused"' "$HOME"/.claude/debug/*.txt
grep -q 'ralph-mcp refused to start: ' "$HOME"/.claude/debug/*.txt && echo "claude-code-refusal: PASS (the reason reaches Claude Code)"
