// What a recorder accepted and why it refused the rest (docs/reliability.md "recording is exact"): one
// source (log_id, topic) per log, fixed before any frame comes (the command, or an authenticated $bos),
// each source frame index once, stored in index order, gaps and repeats named, and an end-of-stream that
// ends nothing unless its count agrees with what was received.
import type { BeginOfStream, EndOfStream } from '../../core/stream/message.ts';

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

/**
 * Whether end-of-stream markers claim what was received: the markers of a round (one per producer)
 * together claim the messages of the source received in it — exactly over PUSH/PULL, at least over
 * PUB/SUB (which may drop; never fewer). A marker that does not agree is no end.
 */
export class EosTally {
  private received = 0;
  private claimed = 0;
  private ends = 0;
  constructor(
    private readonly producers: number,
    private readonly lossy: boolean,
  ) {}

  /** A message of the source arrived (new or repeated). */
  frame(): void {
    this.received++;
  }

  get arrived(): number {
    return this.received;
  }

  /** Whether a marker claiming `messages` agrees; `last` closes the round (the sender is done or stopped). */
  agrees(messages: number, stopped = false): { ok: boolean; note: string | null } {
    const claimed = this.claimed + messages;
    const last = stopped || this.ends + 1 >= this.producers;
    const ok = this.lossy
      ? !last || claimed >= this.received
      : last
        ? claimed === this.received
        : claimed <= this.received;
    if (!ok)
      return {
        ok,
        note:
          `ignored an end-of-stream that does not match what came: it says ${messages} message(s)` +
          `${this.claimed ? ` (${claimed} with the earlier markers)` : ''}, ${this.received} of the source arrived`,
      };
    if (last) {
      this.received = 0;
      this.claimed = 0;
      this.ends = 0;
    } else {
      this.claimed = claimed;
      this.ends++;
    }
    return { ok, note: null };
  }
}

export interface LedgerOptions {
  /** The source log id (the command's --source-log-id); null: set later by announce(). */
  logId?: string | null;
  topic?: string;
  /** Producers whose end-of-stream markers together end the recording. */
  producers?: number;
  /** PUB/SUB: messages may be dropped, so an end-of-stream may claim more than arrived (never fewer). */
  lossy?: boolean;
}

export class RecordLedger {
  private source: { logId: string; topic: string } | null;
  private pinnedLogId: string | null;
  private readonly tally: EosTally;
  private readonly seen = new Set<number>();
  /** Source frame index of each appended frame, in arrival order. */
  readonly arrival: number[] = [];
  private readonly dups: number[] = [];
  private refusedOther = 0;
  private expected: { start: number; end: number } | null = null;
  private complete: boolean | null = null;

  constructor(o: LedgerOptions = {}) {
    this.source = o.logId && o.topic ? { logId: o.logId, topic: o.topic } : null;
    this.pinnedLogId = o.logId ?? null;
    this.tally = new EosTally(o.producers ?? 1, !!o.lossy);
  }

  /** The source's log id, once known. */
  get sourceLogId(): string | null {
    return this.pinnedLogId;
  }

  /**
   * A begin-of-stream from an authenticated peer fixes the source when the command did not; later
   * announcements (another source, or the same one restarted) change nothing.
   */
  announce(bos: BeginOfStream): boolean {
    if (this.pinnedLogId !== null || bos.logId === undefined) return false;
    this.pinnedLogId = bos.logId;
    this.source = { logId: bos.logId, topic: bos.topic };
    return true;
  }

  /**
   * Whether a frame is to be appended. Only frames of the fixed source log count; the first of them
   * fixes the topic (unless announced). Before the source is known every frame is refused.
   */
  accept(logId: string, topic: string, frameIndex: number): { ok: true } | { ok: false; why: Refusal } {
    if (this.pinnedLogId === null || logId !== this.pinnedLogId) return this.refuse('other-source');
    if (!this.source) this.source = { logId, topic };
    else if (topic !== this.source.topic) return this.refuse('other-source');
    this.tally.frame();
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
   * An end-of-stream marker: whether it ends the recording. It must be the source's (topic, and log id
   * when it names one), come after at least one of the source's frames, and claim what was received:
   * the messages the matched markers of this round claim add up to the source frames received since
   * the last round (exactly over PUSH/PULL; at least over PUB/SUB, which may drop). A sender that
   * stopped early (a replay stopped by a signal) does not end it either: a restarted replay resumes.
   */
  endOfStream(eos: EndOfStream): { ends: boolean; note: string | null } {
    const src = this.source;
    if (!src || this.arrival.length === 0) {
      return {
        ends: false,
        note: `ignored an end-of-stream (${eos.logId ?? '?'}, ${eos.topic}, ${eos.messages} messages): no frame of the source has come`,
      };
    }
    if (eos.topic !== src.topic || (eos.logId !== undefined && eos.logId !== src.logId)) {
      return {
        ends: false,
        note: `ignored the end-of-stream of another source (${eos.logId ?? '?'}, ${eos.topic})`,
      };
    }
    const count = this.tally.agrees(eos.messages, !eos.complete);
    if (!count.ok) return { ends: false, note: count.note };
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
