// Learning-rate schedules as functions of the step index (0-based): constant, and linear warm-up
// followed by cosine decay (Loshchilov & Hutter 2017, as used by Copilot4D and most transformers).

export type LrSchedule = (step: number) => number;

export function constantLr(lr: number): LrSchedule {
  return () => lr;
}

export interface WarmupCosineOptions {
  /** Peak learning rate, reached at the end of warm-up. */
  lr: number;
  warmupSteps: number;
  /** Step at which the cosine reaches `minLr` (it stays there afterwards). */
  totalSteps: number;
  minLr?: number;
}

/** lr·(s+1)/warmup during warm-up, then minLr + ½(lr − minLr)(1 + cos(π·progress)). */
export function warmupCosine(opts: WarmupCosineOptions): LrSchedule {
  const { lr, warmupSteps, totalSteps } = opts;
  const minLr = opts.minLr ?? 0;
  return (step) => {
    if (step < warmupSteps) return (lr * (step + 1)) / warmupSteps;
    const progress = Math.min(1, (step - warmupSteps) / Math.max(1, totalSteps - warmupSteps));
    return minLr + 0.5 * (lr - minLr) * (1 + Math.cos(Math.PI * progress));
  };
}
