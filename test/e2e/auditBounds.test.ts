import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { test } from 'node:test';
import { AUDIT_BOUNDS } from '../../src/store/own/record.js';
import { query, sampleProject } from '../helpers/project.js';
import { startRaw } from '../helpers/rawServer.js';

/**
 * Refused calls are audited, and an unknown tool name or arguments of any size used to go
 * whole into ralph_mcp_audit (five calls from a read-only recipe grew the database by 15 MB). Each row
 * now holds at most AUDIT_BOUNDS.toolBytes of name and AUDIT_BOUNDS.argsBytes of arguments, with a
 * marker: five calls of 1 MB name + 1 MB arguments grow the file by less than 64 KiB (README, Limits).
 */
const GROWTH_BOUND = 64 * 1024;

test('unknown tool names and arguments of 1 MB are audited capped; the database grows < 64 KiB over five calls', async () => {
  const p = sampleProject('legacy');
  // Our tables exist before measuring (the first audit row would make them).
  const warm = await startRaw(['--project', p.root, '--recipe', 'yap']);
  await warm.call('no_such_tool', {});
  warm.child.kill('SIGTERM');
  await warm.exited;
  const size = () =>
    statSync(p.dbPath).size +
    (() => {
      try {
        return statSync(`${p.dbPath}-wal`).size;
      } catch {
        return 0;
      }
    })();
  const before = size();
  const s = await startRaw(['--project', p.root, '--recipe', 'yap']);
  for (let i = 0; i < 5; i++) {
    const r = await s.call(`t${i}${'n'.repeat(1 << 20)}`, { blob: 'é'.repeat(1 << 19) });
    assert.equal(r.error?.code, -32602, 'still the unknown-tool answer');
  }
  s.child.kill('SIGTERM');
  await s.exited;
  const grown = size() - before;
  assert.ok(grown < GROWTH_BOUND, `database grew by ${grown} bytes`);
  const rows = query<{ tool: string; arguments: string }>(
    p,
    "SELECT tool, arguments FROM ralph_mcp_audit WHERE outcome = 'unknown_tool' AND tool LIKE 't%'",
  );
  assert.equal(rows.length, 5);
  for (const r of rows) {
    assert.ok(
      Buffer.byteLength(r.tool) <= AUDIT_BOUNDS.toolBytes && Buffer.byteLength(r.arguments) <= AUDIT_BOUNDS.argsBytes,
    );
    assert.match(r.tool, /^t\dn+…\(truncated, 1048578 bytes\)$/);
    assert.match(r.arguments, /^\{"blob":"é+…\(truncated, 1048587 bytes\)$/, 'cut on a character boundary');
  }
});
