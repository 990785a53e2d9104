// Counters of a stream stage (messages in, out, skipped by reason) and the once-per-kind problem log:
// a flood of bad messages costs one stderr line per kind of problem, and a number in the summary.
import { MALFORMED_KINDS, type MalformedKind } from './message.ts';

export type SkipKind = MalformedKind | 'transform-failed';

export interface StageCounters {
  /** Valid batches received (or produced by a source). */
  in: number;
  /** Batches sent on the output. */
  out: number;
  /** Batches the transform consumed without output (returned null). */
  dropped: number;
  /** Payload bytes received in valid batches. */
  bytesIn: number;
  /** Messages skipped, by reason. */
  malformed: Record<SkipKind, number>;
  /** End-of-stream markers received. */
  eos: number;
}

export function newCounters(): StageCounters {
  const malformed = Object.fromEntries([...MALFORMED_KINDS, 'transform-failed'].map((k) => [k, 0]));
  return { in: 0, out: 0, dropped: 0, bytesIn: 0, malformed: malformed as Record<SkipKind, number>, eos: 0 };
}

export function totalMalformed(c: StageCounters): number {
  return Object.values(c.malformed).reduce((s, n) => s + n, 0);
}

/** Counts a skipped message and logs the first of each kind (with its detail) through `log`. */
export class SkipLog {
  private readonly logged = new Set<SkipKind>();

  constructor(
    private readonly counters: StageCounters,
    private readonly where: string,
    private readonly log: (line: string) => void,
  ) {}

  skip(kind: SkipKind, detail: string): void {
    this.counters.malformed[kind]++;
    if (this.logged.has(kind)) return;
    this.logged.add(kind);
    this.log(`${this.where}: skipped a message (${kind}: ${detail}); further ones are only counted`);
  }
}
