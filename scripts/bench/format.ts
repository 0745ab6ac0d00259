/** Statistics and plain-text tables for the bench report. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(samples: readonly number[]): {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
} {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    mean,
    min: s[0] ?? NaN,
    max: s[s.length - 1] ?? NaN,
  };
}

export const median = (xs: readonly number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** Rounds for JSON: 3 significant decimals for small numbers. */
export const round = (x: number, digits = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);

export function ms(x: number): string {
  if (!Number.isFinite(x)) return '-';
  if (x < 1) return x.toFixed(3);
  if (x < 10) return x.toFixed(2);
  if (x < 100) return x.toFixed(1);
  return x.toFixed(0);
}

export const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
export const mb = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

/** A table with a header row; columns whose header starts with '<' are left-aligned (the '<' is dropped). */
export function table(headers: string[], rows: (string | number)[][]): string {
  const left = headers.map((h) => h.startsWith('<'));
  const head = headers.map((h) => (h.startsWith('<') ? h.slice(1) : h));
  const cells = rows.map((r) => r.map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (left[i] ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(fmt)].join('\n');
}
