// What a recorder accepted and why it refused the rest (docs/reliability.md "recording is exact"): one
// source (log_id, topic) per log, each source frame index once, stored in index order, gaps and repeats named.
import type { EndOfStream } from '../../core/stream/message.ts';

export type Refusal = 'other-source' | 'duplicate';

export interface LedgerReport {
  sourceLogId: string | null;
  sourceTopic: string | null;
  /** Source frame indices recorded, ascending. */
  frames: number[];
  /** Source frame ranges [from, to] (inclusive) missing between the first and last expected frame. */
  missing: [number, number][];
  /** Source frame ranges received again and dropped (e.g. a replay restarted from its start). */
  duplicates: [number, number][];
  /** Messages from another log or topic, refused. */
  otherSource: number;
  /** Whether the sender's end-of-stream said its whole range was sent. */
  complete: boolean | null;
}

/** Consecutive integers as inclusive ranges: [3,4,5,9] → [[3,5],[9,9]]. */
export function toRanges(sorted: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of sorted) {
    const last = out[out.length - 1];
    if (last && v === last[1] + 1) last[1] = v;
    else if (!last || v > last[1]) out.push([v, v]);
  }
  return out;
}

export const formatRanges = (r: readonly [number, number][]): string =>
  r.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');

export class RecordLedger {
  private source: { logId: string; topic: string } | null;
  private readonly seen = new Set<number>();
  /** Source frame index of each appended frame, in arrival order. */
  readonly arrival: number[] = [];
  private readonly dups: number[] = [];
  private refusedOther = 0;
  private expected: { start: number; end: number } | null = null;
  private complete: boolean | null = null;

  constructor(source?: { logId?: string; topic?: string }) {
    this.source = source?.logId && source.topic ? { logId: source.logId, topic: source.topic } : null;
    this.pinnedLogId = source?.logId ?? null;
  }

  private readonly pinnedLogId: string | null;

  /** Whether a frame is to be appended; the first accepted frame fixes the source (unless given). */
  accept(logId: string, topic: string, frameIndex: number): { ok: true } | { ok: false; why: Refusal } {
    if (!this.source) {
      if (this.pinnedLogId !== null && logId !== this.pinnedLogId) return this.refuse('other-source');
      this.source = { logId, topic };
    } else if (logId !== this.source.logId || topic !== this.source.topic) {
      return this.refuse('other-source');
    }
    if (this.seen.has(frameIndex)) {
      this.dups.push(frameIndex);
      return { ok: false, why: 'duplicate' };
    }
    return { ok: true };
  }

  private refuse(why: Refusal): { ok: false; why: Refusal } {
    if (why === 'other-source') this.refusedOther++;
    return { ok: false, why };
  }

  /** The frame was appended to the log. */
  appended(frameIndex: number): void {
    this.seen.add(frameIndex);
    this.arrival.push(frameIndex);
  }

  /**
   * An end-of-stream marker: whether it ends the recording. Another source's marker does not; nor does
   * one whose sender stopped early (a replay stopped by a signal), since a restarted replay resumes.
   */
  endOfStream(eos: EndOfStream): { ends: boolean; note: string | null } {
    const src = this.source;
    if (src && (eos.topic !== src.topic || (eos.logId !== undefined && eos.logId !== src.logId))) {
      return {
        ends: false,
        note: `ignored the end-of-stream of another source (${eos.logId ?? '?'}, ${eos.topic})`,
      };
    }
    if (eos.start !== undefined && eos.end !== undefined) {
      const e = this.expected;
      this.expected = e
        ? { start: Math.min(e.start, eos.start), end: Math.max(e.end, eos.end) }
        : { start: eos.start, end: eos.end };
    }
    this.complete = eos.complete;
    if (!eos.complete) {
      const got = formatRanges(toRanges([...this.seen].sort((a, b) => a - b))) || 'none';
      return {
        ends: false,
        note:
          `the sender stopped early after ${eos.messages} messages (frames so far: ${got}); waiting for the rest ` +
          '(restart the replay, from its start or with --start; repeats are dropped) — SIGINT commits what was received',
      };
    }
    return { ends: true, note: null };
  }

  /** Positions of the appended frames in source-index order (what LogWriter.close takes). */
  order(): number[] {
    return this.arrival.map((_, i) => i).sort((a, b) => this.arrival[a] - this.arrival[b]);
  }

  report(): LedgerReport {
    const frames = [...this.arrival].sort((a, b) => a - b);
    const from = Math.min(this.expected?.start ?? Infinity, frames[0] ?? Infinity);
    const to = Math.max((this.expected?.end ?? -Infinity) - 1, frames[frames.length - 1] ?? -Infinity);
    const missing: number[] = [];
    for (let i = from, k = 0; i <= to; i++) {
      while (k < frames.length && frames[k] < i) k++;
      if (frames[k] !== i) missing.push(i);
    }
    return {
      sourceLogId: this.source?.logId ?? null,
      sourceTopic: this.source?.topic ?? null,
      frames,
      missing: toRanges(missing),
      duplicates: toRanges([...new Set(this.dups)].sort((a, b) => a - b)),
      otherSource: this.refusedOther,
      complete: this.complete,
    };
  }
}
