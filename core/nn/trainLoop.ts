// The training loop: batches from a seeded sampler, a progress bar, periodic evaluation and atomic
// checkpoints; a run restarted with the same settings resumes from its checkpoint exactly.
import { createProgress } from '../progress.ts';
import { checkpointExists, loadCheckpoint, saveCheckpoint } from './checkpoint.ts';
import type { Feeds } from './graphSession.ts';
import type { ParamStore } from './params.ts';
import { Rng } from '../rng.ts';
import type { StepResult, Trainer } from './trainer.ts';

export interface TrainLoopOptions {
  trainer: Trainer;
  /** The store holding the trained parameters (saved in checkpoints). */
  params: ParamStore;
  /** Train until this many steps are done in total. */
  steps: number;
  /** The feeds of step `step`; draw randomness only from `rng` so resumed runs see the same data. */
  batch: (step: number, rng: Rng) => Feeds | Promise<Feeds>;
  /** Data sampler RNG (default seed 1); its state is checkpointed. */
  rng?: Rng;
  /** Evaluate every `every` steps (and after the last) with `run`, which returns named metrics. */
  evaluate?: { every: number; run: (step: number) => Promise<Record<string, number>> };
  /** Save to `path` every `every` steps and at the end; resume from it when it exists (default). */
  checkpoint?: { path: string; every: number; resume?: boolean };
  /** Progress-bar label (false: no bar). */
  progress?: string | false;
  /** Called after every step. */
  onStep?: (step: number, r: StepResult) => void | Promise<void>;
}

export interface TrainLoopResult {
  /** Loss of each step run in this call (resumed runs start after the checkpoint). */
  losses: number[];
  evals: { step: number; metrics: Record<string, number> }[];
  /** Step count restored from a checkpoint, or null for a fresh start. */
  resumedFrom: number | null;
  steps: number;
}

export async function trainLoop(o: TrainLoopOptions): Promise<TrainLoopResult> {
  const rng = o.rng ?? new Rng(1);
  const t = o.trainer;
  const state = () => ({ step: t.stepCount, params: o.params, optimizer: t.optimizer, rngs: { data: rng } });
  let resumedFrom: number | null = null;
  if (o.checkpoint && o.checkpoint.resume !== false && checkpointExists(o.checkpoint.path)) {
    const loaded = await loadCheckpoint(o.checkpoint.path, state());
    t.stepCount = loaded.step;
    resumedFrom = loaded.step;
  }
  const losses: number[] = [];
  const evals: TrainLoopResult['evals'] = [];
  const bar = o.progress === false ? null : createProgress(o.progress ?? 'train', o.steps);
  bar?.update(t.stepCount);
  try {
    while (t.stepCount < o.steps) {
      const step = t.stepCount;
      const feeds = await o.batch(step, rng);
      const r = await t.step(feeds);
      losses.push(r.loss);
      await o.onStep?.(step, r);
      const done = t.stepCount;
      bar?.tick(1, `loss ${r.loss.toPrecision(4)} lr ${r.lr.toExponential(2)}`);
      if (o.evaluate && (done % o.evaluate.every === 0 || done === o.steps)) {
        evals.push({ step: done, metrics: await o.evaluate.run(done) });
      }
      if (o.checkpoint && (done % o.checkpoint.every === 0 || done === o.steps)) {
        await saveCheckpoint(o.checkpoint.path, state());
      }
    }
  } finally {
    bar?.stop();
  }
  return { losses, evals, resumedFrom, steps: t.stepCount };
}
