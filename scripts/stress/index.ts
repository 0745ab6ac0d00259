// `npm run stress`: the long versions of the reliability tests. Each module hammers the
// built server one way and reports figures; this prints them as one table and fails if any
// must-be-zero figure is not zero. `npm test` holds the fast versions of the same checks.
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import type { StressFigures, StressModule } from './types.js';

const MODULES = ['concurrency', 'crash', 'fuzz', 'hostile', 'transports', 'leases'] as const;
const only = process.argv.slice(2);

const rows: StressFigures[] = [];
for (const name of MODULES) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`stress: ${name}…\n`);
  const mod = (await import(`./${name}.js`)) as StressModule;
  rows.push(...[await mod.run()].flat()); // a module may report several rows
}

const cols: [string, (r: StressFigures) => string | number][] = [
  ['test', (r) => r.name],
  ['processes', (r) => r.processes],
  ['operations', (r) => r.operations],
  ['lost writes', (r) => r.lostWrites],
  ['busy errors', (r) => r.busyErrors],
  ['crashes survived', (r) => r.crashesSurvived],
  ['fuzz cases', (r) => r.fuzzCases],
  ['server crashes', (r) => r.serverCrashes],
  ['seconds', (r) => r.seconds.toFixed(1)],
];
const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const table = [
  line(cols.map((c) => c[0])),
  line(cols.map(() => '---')),
  ...rows.map((r) => line(cols.map((c) => c[1](r)))),
].join('\n');
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
process.stdout.write(`\n${table}\n\nmachine: ${machine}\n`);
for (const r of rows) if (r.notes) process.stdout.write(`${r.name}: ${r.notes}\n`);
mkdirSync('bench', { recursive: true });
writeFileSync('bench/stress.json', `${JSON.stringify({ machine, date: new Date().toISOString(), rows }, null, 2)}\n`);

const bad = rows.filter((r) => r.lostWrites > 0 || r.busyErrors > 0 || r.serverCrashes > 0);
if (bad.length > 0) {
  process.stderr.write(`stress: FAILED: ${bad.map((r) => r.name).join(', ')}\n`);
  process.exit(1);
}
process.stderr.write('stress: all must-be-zero figures are zero\n');
