export interface WorkloadResult {
  workload: string;
  rps: number;
  p50Ms?: number;
  p99Ms: number;
  rssMb?: number;
  /** The limit this workload is compared with, measured in the same run. */
  limit?: { name: string; rps: number };
  ratio?: number;
  target?: string;
  pass?: boolean;
  notes?: string;
  /** When the row was measured, if in an earlier run than the file's (BENCH_ONLY keeps the rest). */
  measuredAt?: string;
}

export function ratio(rps: number, limit: number): number {
  return limit > 0 ? Number((rps / limit).toFixed(4)) : 0;
}

/** A ratio as shown beside its target: one decimal, cut rather than rounded, so 49.96 % never reads as a met 50 %. */
export function percent(value: number | undefined): string {
  return value === undefined ? '' : `${(Math.floor(value * 1000 + 1e-6) / 10).toFixed(1)} %`;
}

export function printTable(engine: string, rows: WorkloadResult[]): void {
  const header = ['workload', 'rps', 'p50 ms', 'p99 ms', 'RSS MB', 'limit', 'ratio', 'target', 'pass'];
  const lines = rows.map((r) => [
    r.workload,
    String(r.rps),
    r.p50Ms === undefined ? '' : r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    r.rssMb === undefined ? '' : r.rssMb.toFixed(0),
    r.limit ? `${r.limit.name} (${r.limit.rps})` : '',
    percent(r.ratio),
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(`\n${engine}`);
  console.log(fmt(header));
  for (const line of lines) console.log(fmt(line));
}
