// The supervisor of `drivekit pipeline`: starts each branch's processes, restarts one that dies, resends
// frames lost in flight (by index, from the recorder's acknowledgements), reads peak RSS, stops cleanly.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { REPO_ROOT } from '../../core/paths.ts';
import { TUNED_MALLOC_ENV, WRAPPER_PID_ENV } from '../../core/mallocEnv.ts';
import { formatRanges, toRanges } from '../stages/recordLedger.ts';
import type { PipelineConfig } from './config.ts';
import type { Branch, ProcessSpec, Role } from './wiring.ts';

export interface ProcessReport {
  id: string;
  starts: number;
  /** Each exit: the code, or the signal that ended it. */
  exits: (number | string)[];
  /** Highest resident set over all its runs (VmHWM from /proc), MB; null where /proc is absent. */
  peak_rss_mb: number | null;
  /** Seconds from the run's start to its last clean exit. */
  ended_at_s: number | null;
  /** Its last --json summary line (counters, skipped messages by kind). */
  summary: Record<string, unknown> | null;
}

export interface BranchReport {
  stage: string;
  frames_expected: number;
  frames_recorded: number;
  missing: [number, number][];
  /** Frames received again (a resend) and dropped by the recorder. */
  duplicates: number;
  complete: boolean;
  /** Files written (none when frames were lost and nothing was committed). */
  files: Record<string, string>;
  resend_rounds: number;
  /** Seconds from the start to the first frame recorded. */
  first_frame_s: number | null;
  /** Seconds from the start to the last frame recorded (first to last: the steady-state rate). */
  last_frame_s: number | null;
  /** Why the branch stopped before every frame was recorded. */
  lost_because: string | null;
  /** Messages the stage process skipped (garbage), by kind. */
  skipped: Record<string, number>;
}

export interface SupervisorResult {
  branches: BranchReport[];
  processes: ProcessReport[];
  interrupted: boolean;
  elapsed_s: number;
}

export interface SupervisorHooks {
  log: (line: string) => void;
  /** Frames recorded so far over all branches. */
  progress: (done: number, status: string) => void;
}

const CLI = path.join(REPO_ROOT, 'bin', 'drivekit.js');
/**
 * V8 flags of every stage process. A stage mostly waits on its socket between 3 MB frames, and with V8's
 * small starting heap it ran a major GC every ~3 frames (22 in 66 KITTI frames for discover, 14–21 for
 * replay); a 256 MB starting old generation leaves 5–7 and raised `pipeline_3stage` from 30–33 to 34–39
 * frames/s in alternating runs, at about the same peak RSS.
 */
export const STAGE_NODE_FLAGS = ['--initial-heap-size=256'];
/** A stopped process gets this long after SIGTERM before SIGKILL. */
const KILL_AFTER_MS = 8000;

class Proc {
  child: ChildProcess | null = null;
  running = false;
  /** Exited with code 0 (its work is done). */
  done = false;
  starts = 0;
  crashes = 0;
  readonly exits: (number | string)[] = [];
  peakRssKb = 0;
  endedAtS: number | null = null;
  summary: Record<string, unknown> | null = null;
  /** Stopped by the supervisor once every recorder was done (not a failure). */
  stoppedAfterRun = false;
  /** A pending respawn (so a second trigger does not start it twice). */
  pending = false;
  /** Stopped because nothing downstream of it runs any more (its exit is not a crash). */
  orphaned = false;

  constructor(readonly spec: ProcessSpec) {}
}

class BranchState {
  readonly acked = new Set<number>();
  readonly procs: Proc[];
  waiting = false;
  rounds = 0;
  /** Seconds from the start to the recorder's first acknowledged frame. */
  firstAckS: number | null = null;
  lastAckS: number | null = null;
  lostBecause: string | null = null;
  finished = false;
  /** A stage that died since its upstream last ran: what was queued for it is to be sent again. */
  staleBelow: Proc | null = null;
  /** When a frame was last recorded or one of its processes started or ended (ms, the watchdog's clock). */
  lastProgressMs = performance.now();
  /** Stall rounds run by the watchdog (each also counts as a resend round). */
  stalls = 0;

  constructor(
    readonly branch: Branch,
    readonly start: number,
    readonly end: number,
  ) {
    this.procs = [branch.source, ...branch.stages, branch.sink]
      .filter((p) => p !== null)
      .map((p) => new Proc(p));
  }

  proc(role: Role): Proc | undefined {
    return this.procs.find((p) => p.spec.role === role);
  }

  stages(): Proc[] {
    return this.procs.filter((p) => p.spec.role === 'stage');
  }

  /** Where a restarted replay resumes: the first frame not yet recorded, less the history it needs. */
  firstUnacked(): number {
    let i = this.start;
    while (i < this.end && this.acked.has(i)) i++;
    return this.withContext(i);
  }

  /** A resend from `frame` starts the branch's context frames earlier (the forecast's past). */
  withContext(frame: number): number {
    return Math.max(this.start, frame - this.branch.contextFrames);
  }

  missing(): [number, number][] {
    const m: number[] = [];
    for (let i = this.start; i < this.end; i++) if (!this.acked.has(i)) m.push(i);
    return toRanges(m);
  }
}

function readPeakRssKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s*kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Run every branch to its end (or until `signal` aborts), restarting and resending as needed. */
export async function supervise(
  branches: Branch[],
  cfg: PipelineConfig,
  range: { start: number; end: number },
  hooks: SupervisorHooks,
  signal: AbortSignal,
): Promise<SupervisorResult> {
  const t0 = performance.now();
  const states = branches.map((b) => new BranchState(b, range.start, range.end));
  const logDir = path.join(cfg.out, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  let stopping = false;
  let restarts = 0;
  let resolveAll!: () => void;
  const allDone = new Promise<void>((r) => (resolveAll = r));

  const report = () => {
    const done = states.reduce((s, b) => s + (b.branch.sink ? b.acked.size : 0), 0);
    hooks.progress(done, restarts ? `${restarts} restart(s)` : '');
  };

  const start = (b: BranchState, p: Proc, r: { start: number; end: number }) => {
    p.pending = false;
    if (stopping) return;
    // Tuned malloc set here, so the child does not re-run itself (its pid is the stage's own); naming this
    // process as its wrapper makes it stop if the supervisor dies (even by SIGKILL) instead of lingering.
    const env = { ...process.env, ...TUNED_MALLOC_ENV, [WRAPPER_PID_ENV]: String(process.pid) };
    const child = spawn(process.execPath, [...STAGE_NODE_FLAGS, CLI, ...p.spec.argv(r)], {
      // The user's folder: relative paths in the config mean what they meant on the command line.
      cwd: process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal's Ctrl-C reaches the supervisor only, which stops the stages.
      detached: true,
    });
    p.child = child;
    b.lastProgressMs = performance.now();
    p.running = true;
    p.done = false;
    p.starts++;
    hooks.log(
      `pipeline: ${p.spec.id} started (pid ${child.pid}${p.spec.role === 'source' ? `, frames ${r.start}–${r.end - 1}` : ''})`,
    );
    const logFile = fs.createWriteStream(path.join(logDir, `${p.spec.id.replace('/', '-')}.log`), {
      flags: 'a',
    });
    child.stderr!.pipe(logFile);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => onLine(b, p, line));
    if (p.spec.role === 'sink') setImmediate(() => maybeResend(b));
    child.on('exit', (code, sig) => {
      p.running = false;
      b.lastProgressMs = performance.now();
      p.exits.push(p.stoppedAfterRun && sig ? 'stopped' : (sig ?? code ?? -1));
      onExit(b, p, code, sig);
    });
  };

  const onLine = (b: BranchState, p: Proc, line: string) => {
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (j.event === 'ack' && typeof j.frame === 'number') {
      b.acked.add(j.frame);
      b.lastProgressMs = performance.now();
      b.lastAckS = (performance.now() - t0) / 1000;
      b.firstAckS ??= b.lastAckS;
      report();
    } else if (j.event === 'resumed' && Array.isArray(j.frames)) {
      for (const f of j.frames as number[]) b.acked.add(f);
      report();
    } else if (j.event === 'waiting') {
      b.waiting = true;
      maybeResend(b);
    } else if (typeof j.stage === 'string') {
      p.summary = j;
    }
  };

  const respawnLater = (b: BranchState, p: Proc, r: { start: number; end: number }) => {
    if (p.pending || p.running) return;
    p.pending = true;
    // A short pause: the dead process's socket file and port are released, and a crash loop stays slow.
    setTimeout(() => start(b, p, r), 200);
  };

  const giveUp = (b: BranchState, why: string) => {
    if (b.lostBecause) return;
    b.lostBecause = why;
    hooks.log(`pipeline: ${b.branch.name}: ${why}; recording what came`);
    for (const p of b.procs) {
      p.pending = false;
      if (!p.running) continue;
      // The recorder commits what it has and names the rest (SIGUSR2); the others just stop.
      p.child!.kill(p.spec.role === 'sink' ? 'SIGUSR2' : 'SIGTERM');
    }
    checkFinished();
  };

  /**
   * A stage died: the processes upstream of it (the replay, and in a chain the stages before it) may have
   * sent their last frames and end-of-stream into its queue, gone with it — a finished upstream process
   * lingers until its peer takes everything, then exits. Once all of them have finished, run them again
   * from the first frame not recorded (less the context); the recorder drops repeats.
   */
  const rerunUpstream = (b: BranchState) => {
    const dead = b.staleBelow;
    if (!dead || stopping || b.lostBecause || b.finished) return;
    const stages = b.stages();
    const upstream = [b.proc('source')!, ...stages.slice(0, stages.indexOf(dead))];
    if (!upstream.every((u) => u.done && !u.running && !u.pending)) return;
    b.staleBelow = null;
    const from = { start: b.firstUnacked(), end: range.end };
    hooks.log(
      `pipeline: ${b.branch.name}: running ${upstream.map((u) => u.spec.id).join(', ')} again from frame ${from.start}`,
    );
    for (const u of upstream.slice(1)) respawnLater(b, u, range);
    respawnLater(b, upstream[0], from);
  };

  /** Resend round: the recorder saw the end of the stream with frames missing, and nothing upstream runs. */
  const maybeResend = (b: BranchState) => {
    const src = b.proc('source')!;
    const stages = b.stages();
    if (!b.waiting || stopping || b.lostBecause || b.finished) return;
    // A process upstream of a stage that has finished can deliver to no one (in a chain: a rerun whose
    // stage had already taken an earlier end-of-stream): stop it, so the resend round can begin.
    const chain = [src, ...stages];
    let lastDone = -1;
    chain.forEach((q, i) => {
      if (q.done && !q.running && !q.pending) lastDone = i;
    });
    for (const q of chain.slice(0, Math.max(0, lastDone)))
      if (q.running && !q.orphaned) {
        q.orphaned = true;
        hooks.log(`pipeline: ${q.spec.id} has no one downstream left; stopping it for the resend round`);
        q.child!.kill('SIGTERM');
      }
    // The process right before the recorder sent the end-of-stream it waits past; over ipc it stays
    // connected until the recorder hangs up (core/stream/peerWatch.ts), which a waiting one does not.
    const last = chain[chain.length - 1];
    if (last.running && !last.orphaned && chain.slice(0, -1).every((q) => !q.running && !q.pending)) {
      last.orphaned = true;
      hooks.log(`pipeline: ${last.spec.id} has delivered everything; stopping it for the resend round`);
      last.child!.kill('SIGTERM');
    }
    if (src.running || src.pending || stages.some((s) => s.running || s.pending)) return;
    const missing = b.missing();
    if (++b.rounds > cfg.maxRepairRounds) {
      giveUp(b, `frames ${formatRanges(missing)} still missing after ${cfg.maxRepairRounds} resend round(s)`);
      return;
    }
    b.waiting = false;
    b.staleBelow = null;
    // Nothing missing (only the end-of-stream was lost): an empty range sends just the marker.
    const r = missing.length
      ? { start: b.withContext(missing[0][0]), end: missing[missing.length - 1][1] + 1 }
      : { start: range.end, end: range.end };
    hooks.log(
      `pipeline: ${b.branch.name}: resending frames ${missing.length ? formatRanges(missing) : '(none; end-of-stream only)'}`,
    );
    for (const stage of stages) start(b, stage, r);
    start(b, src, r);
  };

  const onExit = (b: BranchState, p: Proc, code: number | null, sig: NodeJS.Signals | null) => {
    if (p.orphaned) {
      // Stopped by maybeResend, not a failure: the resend round takes over.
      p.orphaned = false;
      p.done = true;
      maybeResend(b);
    } else if (code === 0) {
      p.done = true;
      p.endedAtS = (performance.now() - t0) / 1000;
      if (p.spec.role === 'sink') b.finished = true;
      else {
        rerunUpstream(b);
        maybeResend(b);
      }
    } else if (!stopping && !b.lostBecause && !b.finished && b.branch.sink) {
      const how = sig ? `killed by ${sig}` : `exit ${code}`;
      p.crashes++;
      if (p.crashes > cfg.maxRestarts) {
        giveUp(b, `${p.spec.id} died ${p.crashes} times (last: ${how})`);
      } else {
        restarts++;
        hooks.log(`pipeline: ${p.spec.id} ${how}; restarting (${p.crashes}/${cfg.maxRestarts})`);
        const from = { start: b.firstUnacked(), end: range.end };
        if (p.spec.role === 'source') respawnLater(b, p, from);
        else if (p.spec.role === 'stage') {
          respawnLater(b, p, range);
          // What was queued for the dead stage, the end-of-stream perhaps among it, is gone: once
          // everything upstream has finished, run it again (see rerunUpstream).
          const order = b.stages();
          if (order.indexOf(p) === 0) {
            // First stage of its branch: as for discover / detect, only a finished replay's end-of-stream
            // can have died with it; send again from the first frame not recorded.
            if (b.proc('source')!.done) respawnLater(b, b.proc('source')!, from);
          } else {
            if (!b.staleBelow || order.indexOf(p) > order.indexOf(b.staleBelow)) b.staleBelow = p;
            rerunUpstream(b);
          }
        } else {
          // The restarted recorder resumes from its journal; what was queued for it is gone, and the
          // end-of-stream may have been too: once nothing upstream runs, resend what is missing.
          b.waiting = true;
          respawnLater(b, p, range);
        }
      }
    } else if (!stopping && !b.branch.sink) {
      hooks.log(`pipeline: ${p.spec.id} ended (${sig ?? code}); the viewer feed is not restarted`);
    }
    report();
    checkFinished();
  };

  const checkFinished = () => {
    const analysis = states.filter((b) => b.branch.sink);
    const over = analysis.every((b) => b.finished || b.lostBecause);
    if (over && !stopping) {
      // Every recorder is done: stop what still runs (a viewer feed, a resend no longer needed).
      for (const b of states)
        for (const p of b.procs)
          if (p.running) {
            p.stoppedAfterRun = true;
            p.child!.kill('SIGTERM');
          }
    }
    const anyRunning = states.some((b) => b.procs.some((p) => p.running || p.pending));
    if ((over || stopping) && !anyRunning) resolveAll();
  };

  const stopAll = () => {
    stopping = true;
    for (const b of states)
      for (const p of b.procs) {
        p.pending = false;
        if (p.running) p.child!.kill('SIGTERM');
      }
    setTimeout(() => {
      for (const b of states) for (const p of b.procs) if (p.running) p.child!.kill('SIGKILL');
    }, KILL_AFTER_MS).unref();
    checkFinished();
  };
  if (signal.aborted) stopAll();
  else signal.addEventListener('abort', stopAll, { once: true });

  /**
   * The no-progress watchdog: a branch whose recorder has recorded nothing, and none of whose processes
   * started or ended, for `stallTimeoutS` is stalled (a lost end-of-stream, a peer stuck on a dead socket):
   * its upstream processes are killed — they hold nothing the resend cannot give again — and a resend round
   * of the missing frames begins; once the rounds are spent, the branch gives up naming them. Never silent.
   */
  const watchdog = (now: number) => {
    for (const b of states) {
      if (!b.branch.sink || b.finished || b.lostBecause || stopping) continue;
      if (now - b.lastProgressMs < cfg.stallTimeoutS * 1000) continue;
      // Every frame recorded and nothing upstream left: the recorder is finishing (discover's tracking of a
      // long log takes minutes), not stalled.
      const upstreamRuns = b.procs.some((p) => p.spec.role !== 'sink' && (p.running || p.pending));
      if (!upstreamRuns && b.missing().length === 0) continue;
      b.lastProgressMs = now;
      b.stalls++;
      const missing = b.missing();
      hooks.log(
        `pipeline: ${b.branch.name}: no progress for ${cfg.stallTimeoutS} s (frames ${missing.length ? formatRanges(missing) : '(none)'} not recorded); stopping upstream for a resend round`,
      );
      b.waiting = true;
      b.staleBelow = null;
      const upstream = b.procs.filter((p) => p.spec.role !== 'sink');
      for (const q of upstream) {
        q.pending = false;
        if (q.running && !q.orphaned) {
          q.orphaned = true;
          // SIGKILL: a stalled process may be blocked on a send that SIGTERM would let drain for minutes.
          q.child!.kill('SIGKILL');
        }
      }
      if (!upstream.some((q) => q.running)) maybeResend(b);
    }
  };
  const watchdogTimer =
    cfg.stallTimeoutS > 0
      ? setInterval(() => watchdog(performance.now()), Math.min(1000, cfg.stallTimeoutS * 250))
      : null;

  const rssTimer = setInterval(() => {
    for (const b of states)
      for (const p of b.procs)
        if (p.running && p.child?.pid) p.peakRssKb = Math.max(p.peakRssKb, readPeakRssKb(p.child.pid));
  }, cfg.rssPollMs);

  // Recorders first, then the stages, then the replays: everyone downstream is listening when frames come.
  for (const role of ['sink', 'stage', 'source'] as const)
    for (const b of states)
      for (const p of b.procs.filter((q) => q.spec.role === role).reverse()) start(b, p, range);
  await allDone;
  clearInterval(rssTimer);
  if (watchdogTimer) clearInterval(watchdogTimer);
  signal.removeEventListener('abort', stopAll);

  return {
    interrupted: stopping,
    elapsed_s: (performance.now() - t0) / 1000,
    processes: states.flatMap((b) =>
      b.procs.map((p) => ({
        id: p.spec.id,
        starts: p.starts,
        exits: p.exits,
        peak_rss_mb: p.peakRssKb > 0 ? Math.round(p.peakRssKb / 102.4) / 10 : null,
        ended_at_s: p.endedAtS,
        summary: p.summary,
      })),
    ),
    branches: states
      .filter((b) => b.branch.sink)
      .map((b) => {
        const sink = b.proc('sink')!.summary;
        const skipped: Record<string, number> = {};
        for (const p of b.stages())
          for (const [k, n] of Object.entries(
            (p.summary?.malformed as Record<string, number> | undefined) ?? {},
          ))
            skipped[k] = (skipped[k] ?? 0) + n;
        const missing = b.missing();
        const written = sink && (sink.file as string | null) !== null && b.finished;
        return {
          stage: b.branch.name,
          frames_expected: range.end - range.start,
          frames_recorded: b.acked.size,
          missing,
          duplicates: Number(sink?.duplicates ?? 0),
          complete: missing.length === 0 && b.finished,
          files: written ? b.branch.files : {},
          resend_rounds: b.rounds,
          first_frame_s: b.firstAckS,
          last_frame_s: b.lastAckS,
          lost_because: missing.length ? (b.lostBecause ?? (stopping ? 'interrupted' : 'unknown')) : null,
          skipped,
        };
      }),
  };
}
