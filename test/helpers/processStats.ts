import { readFileSync } from 'node:fs';

/** Resident memory of a process in MB, from /proc/<pid>/status (VmRSS); null if it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples rssMb every `everyMs` until stop() is called; stop() returns the peak seen. */
export function sampleRss(pid: number, everyMs = 100): { peak: () => number; stop: () => number } {
  let peak = rssMb(pid) ?? 0;
  const sample = () => {
    peak = Math.max(peak, rssMb(pid) ?? 0);
  };
  const timer = setInterval(sample, everyMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
