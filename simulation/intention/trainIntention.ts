// Fitting the junction-intention head on logged fork choices (towns and a real fold), the epoch chosen on
// validation forks, then scored once on held-out sets beside its baselines; resumable, exported as ONNX.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/atomic.ts';
import * as nn from '../../core/nn/index.ts';
import type { Scenario } from '../scenario.ts';
import {
  type ChoiceScore,
  fitTurnPrior,
  scoreChoices,
  straightestChoice,
  turnPriorChoice,
  type TurnPrior,
  uniformChoice,
} from './baselines.ts';
import { BRANCH_FEATURES, MAX_BRANCHES } from './branchFeatures.ts';
import { concatSets, type ForkSet, forkSet, subset } from './forkSet.ts';
import { DEFAULT_INTENTION_MODEL, IntentionModel, type IntentionModelConfig } from './intentionModel.ts';

export interface IntentionTrainConfig {
  /** Passes over the training forks. */
  epochs: number;
  /** Forks per optimiser step. */
  batch: number;
  /** Weight of a fork on a real map against a synthetic one (real forks are few, and what matters). */
  realWeight: number;
  /** Every this-many-th real training fork is held for validation instead. */
  realValidationEvery: number;
  /** Epochs between checkpoints. */
  checkpointEvery: number;
  /** Seed of the data order. */
  seed: number;
  /** Overrides of the head's settings (intentionModel.ts). */
  model: Partial<IntentionModelConfig>;
}

export const DEFAULT_INTENTION_TRAIN: IntentionTrainConfig = {
  epochs: 150,
  batch: 64,
  realWeight: 4,
  realValidationEvery: 4,
  checkpointEvery: 25,
  seed: 1,
  model: {},
};

export interface IntentionTrainInput {
  /** Scenarios whose fork choices train the head (towns and one real fold). */
  train: readonly Scenario[];
  /** Scenarios whose forks choose the epoch (with every realValidationEvery-th real training fork). */
  validation: readonly Scenario[];
  /** Held-out sets, scored once with the chosen epoch. */
  test: readonly { name: string; scenarios: readonly Scenario[] }[];
  /** Run folder: checkpoint, intention.onnx, intention.json. */
  out: string;
  /** Provenance written into the metadata (command, data, folds). */
  data: Record<string, unknown>;
  onProgress?: (epoch: number, total: number, status: string) => void;
}

export interface HeldOutScores {
  name: string;
  model: ChoiceScore;
  uniform: ChoiceScore;
  turnPrior: ChoiceScore;
  straightest: ChoiceScore;
}

export interface IntentionTrainResult {
  curve: { epoch: number; trainNll: number; validationNll: number }[];
  bestEpoch: number;
  turnPrior: TurnPrior;
  heldOut: HeldOutScores[];
  forks: { train: number; trainReal: number; validation: number };
  files: string[];
}

const CHECKPOINT = 'intention.ckpt';

/** Validation NLL: the mean of the synthetic and the real forks' means (each domain counts once). */
async function validationNll(model: IntentionModel, set: ForkSet): Promise<number> {
  const all = Int32Array.from({ length: set.count }, (_, i) => i);
  const p = await model.probabilities(set, all);
  const parts: number[] = [];
  for (const real of [0, 1]) {
    const rows = all.filter((i) => set.real[i] === real);
    if (!rows.length) continue;
    let nll = 0;
    for (const i of rows) nll -= Math.log(Math.max(1e-9, p[i * MAX_BRANCHES + set.chosen[i]]));
    parts.push(nll / rows.length);
  }
  return parts.reduce((a, b) => a + b, 0) / Math.max(1, parts.length);
}

export async function trainIntention(
  input: IntentionTrainInput,
  over: Partial<IntentionTrainConfig> = {},
): Promise<IntentionTrainResult> {
  const cfg = { ...DEFAULT_INTENTION_TRAIN, ...over };
  fs.mkdirSync(input.out, { recursive: true });
  const all = forkSet(input.train, cfg.realWeight);
  // Real training forks: every k-th to validation, in order (forks of one scenario spread over both).
  let realSeen = 0;
  const toValidation = Uint8Array.from({ length: all.count }, (_, i) =>
    all.real[i] && realSeen++ % cfg.realValidationEvery === cfg.realValidationEvery - 1 ? 1 : 0,
  );
  const train = subset(all, (i) => !toValidation[i]);
  const heldReal = subset(all, (i) => toValidation[i] === 1);
  const valTowns = forkSet(input.validation, cfg.realWeight);
  const validation = concatSets(valTowns, heldReal);
  if (train.count === 0) throw new Error('train-intention: the training scenarios have no fork choices');

  const model = await IntentionModel.create({ ...DEFAULT_INTENTION_MODEL, seed: cfg.seed, ...cfg.model });
  const rng = new nn.Rng(cfg.seed);
  const ckpt = path.join(input.out, CHECKPOINT);
  let start = 0;
  let best = { epoch: 0, nll: Infinity, params: model.snapshot() };
  let curve: IntentionTrainResult['curve'] = [];
  if (fs.existsSync(ckpt)) {
    const r = await nn.loadCheckpoint(ckpt, {
      params: model.params,
      optimizer: model.optimizer,
      rngs: { data: rng },
    });
    const extra = r.extra as { curve: typeof curve; bestEpoch: number; bestNll: number };
    start = r.step;
    curve = extra.curve;
    best = { epoch: extra.bestEpoch, nll: extra.bestNll, params: r.best ?? model.snapshot() };
  }
  const order = Int32Array.from({ length: train.count }, (_, i) => i);
  for (let epoch = start + 1; epoch <= cfg.epochs; epoch++) {
    rng.shuffle(order);
    let sum = 0;
    let steps = 0;
    for (let s = 0; s < order.length; s += cfg.batch) {
      sum += await model.step(train, order.subarray(s, Math.min(order.length, s + cfg.batch)));
      steps++;
    }
    const validationNllNow = validation.count ? await validationNll(model, validation) : sum / steps;
    curve.push({ epoch, trainNll: sum / steps, validationNll: validationNllNow });
    if (validationNllNow < best.nll) best = { epoch, nll: validationNllNow, params: model.snapshot() };
    input.onProgress?.(epoch, cfg.epochs, `val nll ${validationNllNow.toFixed(3)} (best ${best.epoch})`);
    if (epoch % cfg.checkpointEvery === 0 || epoch === cfg.epochs)
      await nn.saveCheckpoint(ckpt, {
        step: epoch,
        params: model.params,
        optimizer: model.optimizer,
        rngs: { data: rng },
        extra: { curve, bestEpoch: best.epoch, bestNll: best.nll },
        best: best.params,
      });
  }
  model.restore(best.params);

  // Held out: scored once, beside the baselines (the turn prior counted on the training forks).
  const turnPrior = fitTurnPrior(train);
  const heldOut: HeldOutScores[] = [];
  for (const t of input.test) {
    const set = forkSet(t.scenarios, 1);
    const rows = Int32Array.from({ length: set.count }, (_, i) => i);
    heldOut.push({
      name: t.name,
      model: scoreChoices(set, await model.probabilities(set, rows)),
      uniform: scoreChoices(set, uniformChoice(set)),
      turnPrior: scoreChoices(set, turnPriorChoice(turnPrior, set)),
      straightest: scoreChoices(set, straightestChoice(set)),
    });
  }
  const onnx = path.join(input.out, 'intention.onnx');
  const meta = path.join(input.out, 'intention.json');
  await writeFileAtomic(onnx, model.onnxBytes());
  const forks = { train: train.count, trainReal: countReal(train), validation: validation.count };
  await writeFileAtomic(
    meta,
    `${JSON.stringify(
      {
        kind: 'drivekit-intention',
        about:
          "junction-intention head: per-branch MLP logits, softmax over a fork's branches (simulation/intention/)",
        inputs: { branches: ['batch', MAX_BRANCHES, BRANCH_FEATURES] },
        outputs: { logits: ['batch', MAX_BRANCHES] },
        ...input.data,
        config: cfg,
        forks,
        selection: { rule: 'least validation NLL (mean of synthetic and real forks)', bestEpoch: best.epoch },
        turnPrior,
        heldOut,
        curve,
      },
      null,
      1,
    )}\n`,
  );
  await model.dispose();
  return { curve, bestEpoch: best.epoch, turnPrior, heldOut, forks, files: [onnx, meta] };
}

function countReal(s: ForkSet): number {
  return s.real.reduce((a, b) => a + b, 0);
}
