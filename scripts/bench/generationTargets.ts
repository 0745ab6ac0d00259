/**
 * Issue 30, goal 1: Ralph's normalized schema (where almost every user's calls run) as fast as the legacy
 * one, at the comparison size, from the same interleaved rounds: each read family within 10% of the
 * legacy generation's p50 and calls/s, each write family within 20%. Families a run did not measure are
 * left out (BENCH_FAMILIES).
 */

/** What a family's median row says (scripts/bench/index.ts FamilyResult). */
export interface FamilyFigures {
  family: string;
  config: string;
  p50_ms: number;
  calls_per_s: number;
}

export interface GenerationTarget {
  id: string;
  target: string;
  measured: string;
  pass: boolean;
}

/** The read families the goal names (search_tasks: every search family), and the writes. */
export const READ_FAMILIES = [
  'get_task',
  'list_tasks page',
  'list_tasks filtered',
  'search_tasks',
  'get_project_progress',
  'next_tasks',
];
export const WRITE_FAMILIES = ['claim_next_task', 'create_task', 'add_task_comment', 'set_task_status'];
const READ_TOLERANCE = 1.1;
const WRITE_TOLERANCE = 1.2;

const isRead = (f: string) => READ_FAMILIES.some((r) => f === r || (r === 'search_tasks' && f.startsWith(r)));

export function generationTargets(rows: readonly FamilyFigures[], at = ''): GenerationTarget[] {
  const of = (config: string, f: string) => rows.find((r) => r.config === config && r.family === f);
  const out: GenerationTarget[] = [];
  const families = rows.filter((r) => r.config === 'ours-legacy').map((r) => r.family);
  for (const f of families) {
    const tolerance = isRead(f) ? READ_TOLERANCE : WRITE_FAMILIES.includes(f) ? WRITE_TOLERANCE : undefined;
    const leg = of('ours-legacy', f);
    const norm = of('ours-normalized', f);
    if (tolerance === undefined || !leg || !norm) continue;
    const p50 = norm.p50_ms / leg.p50_ms;
    const cps = norm.calls_per_s / leg.calls_per_s;
    const t = tolerance.toFixed(2);
    out.push({
      id: '30.1',
      target: `${f}: normalized p50 ≤ ${t}× legacy's${at}`,
      measured: `${norm.p50_ms.toFixed(3)} vs ${leg.p50_ms.toFixed(3)} ms = ${p50.toFixed(2)}×`,
      pass: p50 <= tolerance,
    });
    out.push({
      id: '30.1',
      target: `${f}: normalized calls/s ≥ legacy's / ${t}${at}`,
      measured: `${Math.round(norm.calls_per_s)} vs ${Math.round(leg.calls_per_s)} calls/s = ${cps.toFixed(2)}×`,
      pass: cps >= 1 / tolerance,
    });
  }
  return out;
}

/**
 * The yardstick for goal 1's ratios: `ping` runs no tool, the same code on both generations, so its
 * normalized/legacy ratio in this run is what the machine alone moves a ratio by.
 */
export function generationNoise(rows: readonly FamilyFigures[]): string | undefined {
  const of = (config: string) => rows.find((r) => r.config === config && r.family === 'ping (no tool)');
  const leg = of('ours-legacy');
  const norm = of('ours-normalized');
  if (!leg || !norm) return undefined;
  const p50 = (norm.p50_ms / leg.p50_ms).toFixed(2);
  const cps = (norm.calls_per_s / leg.calls_per_s).toFixed(2);
  return `30.1's yardstick: ping (no tool) runs the same code on both generations; normalized/legacy in this run: p50 ${p50}×, calls/s ${cps}×`;
}
