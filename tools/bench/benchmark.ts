// The shape of a benchmark and small timing helpers: repeated timed runs, peak RSS (their median is
// core/stats.ts median).
// Speed targets are benchmark figures printed as JSON lines, never timed unit tests.

export interface Figure {
  name: string;
  [key: string]: number | string | boolean | null | number[];
}

export interface Benchmark {
  /** Names of the figures it emits (used by the substring filter). */
  names: string[];
  run(emit: (figure: Figure) => void): Promise<void>;
}

/** Run `fn` `warmup` times untimed, then `reps` times; returns the milliseconds of each timed run. */
export async function timeRuns(
  fn: () => unknown | Promise<unknown>,
  reps: number,
  warmup = 1,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}
