// Progress reporting for long work: a cli-progress bar with ETA on a terminal, a few plain lines
// otherwise (CI logs), nothing when silenced. Always on stderr so stdout stays clean for --json.
import cliProgress from 'cli-progress';

export interface Progress {
  /** Advance by `n` (default 1), optionally updating the status text. */
  tick(n?: number, status?: string): void;
  /** Set the absolute position. */
  update(value: number, status?: string): void;
  stop(): void;
}

export interface ProgressOptions {
  silent?: boolean;
}

let globalSilent = false;

/** Silence every progress bar of this process (e.g. for `--json` or `--quiet`). */
export function setProgressSilent(silent: boolean): void {
  globalSilent = silent;
}

export function createProgress(label: string, total: number, opts: ProgressOptions = {}): Progress {
  if (opts.silent || globalSilent || total <= 0) {
    return { tick() {}, update() {}, stop() {} };
  }
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label.padEnd(18)} {bar} {percentage}% | {value}/{total} | ETA {eta_formatted} {status}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    let value = 0;
    bar.start(total, 0, { status: '' });
    return {
      tick(n = 1, status) {
        value += n;
        bar.update(value, status === undefined ? undefined : { status });
      },
      update(v, status) {
        value = v;
        bar.update(v, status === undefined ? undefined : { status });
      },
      stop() {
        bar.stop();
      },
    };
  }
  // Not a terminal: one line at each 25% step.
  let value = 0;
  let nextReport = 0.25;
  const start = Date.now();
  const report = (status?: string) => {
    while (value / total >= nextReport && nextReport <= 1) {
      const s = ((Date.now() - start) / 1000).toFixed(1);
      process.stderr.write(
        `${label}: ${Math.round(nextReport * 100)}% (${value}/${total}, ${s}s)${status ? ' ' + status : ''}\n`,
      );
      nextReport += 0.25;
    }
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
    stop() {},
  };
}
