// Progress reporting for long work: a cli-progress bar with rate and ETA on a terminal, a line per item
// (rate, ETA) otherwise (CI logs), nothing when silenced. Always on stderr so stdout stays clean for --json.
import cliProgress from 'cli-progress';

export interface Progress {
  /** Advance by `n` (default 1), optionally updating the status text. */
  tick(n?: number, status?: string): void;
  /** Set the absolute position. */
  update(value: number, status?: string): void;
  /** The work picks up at `value` (a resumed job): rate and ETA count only the items after it. */
  resume(value: number): void;
  stop(): void;
}

export interface ProgressOptions {
  silent?: boolean;
  /** What an item is, for the rate ('frames', 'scenarios'; default 'items'). */
  unit?: string;
}

let globalSilent = false;

/** Silence every progress bar of this process (e.g. for `--json` or `--quiet`). */
export function setProgressSilent(silent: boolean): void {
  globalSilent = silent;
}

export function createProgress(label: string, total: number, opts: ProgressOptions = {}): Progress {
  if (opts.silent || globalSilent || total <= 0) {
    return { tick() {}, update() {}, resume() {}, stop() {} };
  }
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label.padEnd(18)} {bar} {percentage}% | {value}/{total} | {rate} ${opts.unit ?? 'items'}/s | ETA {eta_formatted} {status}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    let value = 0;
    let base = 0;
    let t0 = performance.now();
    const rate = () => {
      const s = (performance.now() - t0) / 1000;
      const r = (value - base) / s;
      return s > 0 ? r.toFixed(r < 10 ? 2 : 0) : '-';
    };
    bar.start(total, 0, { status: '', rate: '-' });
    return {
      tick(n = 1, status) {
        value += n;
        bar.update(value, status === undefined ? { rate: rate() } : { status, rate: rate() });
      },
      update(v, status) {
        value = v;
        bar.update(v, status === undefined ? { rate: rate() } : { status, rate: rate() });
      },
      resume(v) {
        value = base = v;
        t0 = performance.now();
        bar.start(total, v, { status: '', rate: '-' });
      },
      stop() {
        bar.stop();
      },
    };
  }
  return lineProgress(label, total, { unit: opts.unit, write: (l) => process.stderr.write(l) });
}

/** Settings of the line reporter used off a terminal (CI logs, pipes). */
export const DEFAULT_LINE_PROGRESS = {
  /** At most one line per this many ms, besides the first and the last item (ms). */
  minIntervalMs: 1000,
};

/** "12.3 s", "4 min 05 s", "1 h 02 min": an ETA a reader takes in at a glance. */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.round((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * Off a terminal: a line per finished item, `label: 3/22 (14%), 1.9 frames/s, ETA 10.0 s`, throttled to
 * one a second on long jobs (the first and last items always print); the last says how long it all took.
 * A position that does not move prints nothing, so a 1-item job prints one line; after resume(v) (a
 * resumed job) the rate, ETA and duration count from v.
 */
export function lineProgress(
  label: string,
  total: number,
  opts: { unit?: string; write: (line: string) => void; now?: () => number; minIntervalMs?: number },
): Progress {
  const now = opts.now ?? (() => performance.now());
  const unit = opts.unit ?? 'items';
  const minInterval = opts.minIntervalMs ?? DEFAULT_LINE_PROGRESS.minIntervalMs;
  let start = now();
  let value = 0;
  let base = 0;
  let printed = 0;
  let lastLineMs = -Infinity;
  const report = (status?: string) => {
    if (value <= printed) return;
    const t = now();
    const last = value >= total;
    if (!last && printed > 0 && t - lastLineMs < minInterval) return;
    const elapsedS = (t - start) / 1000;
    const rate = elapsedS > 0 ? (value - base) / elapsedS : Infinity;
    const pct = Math.min(100, Math.floor((100 * value) / total));
    const rateText = Number.isFinite(rate)
      ? `${rate < 10 ? rate.toFixed(2) : rate.toFixed(0)} ${unit}/s`
      : '';
    const tail = last ? `done in ${formatSeconds(elapsedS)}` : `ETA ${formatSeconds((total - value) / rate)}`;
    opts.write(
      `${label}: ${Math.min(value, total)}/${total} (${pct}%)${rateText ? `, ${rateText}` : ''}, ${tail}${status ? ' ' + status : ''}\n`,
    );
    printed = value;
    lastLineMs = t;
  };
  return {
    tick(n = 1, status) {
      value += n;
      report(status);
    },
    update(v, status) {
      value = v;
      report(status);
    },
    resume(v) {
      value = base = printed = v;
      start = now();
    },
    stop() {},
  };
}
