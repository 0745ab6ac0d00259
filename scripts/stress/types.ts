/** One row of the `npm run stress` table: each stress module measures one kind of trouble. */
export interface StressFigures {
  name: string;
  processes: number;
  operations: number;
  /** Writes acknowledged (or issued, for plain SQL) but not found afterwards, or found twice: must be 0. */
  lostWrites: number;
  /** Tool calls that failed with busy/locked: must be 0. */
  busyErrors: number;
  crashesSurvived: number;
  fuzzCases: number;
  /** Server processes that died on their own (not killed by us): must be 0. */
  serverCrashes: number;
  seconds: number;
  notes?: string;
}

export type StressModule = { run: () => Promise<StressFigures | StressFigures[]> };
