// Where the driven agents of a rollout turn at forks: straightest (IDM's default without a goal), routes
// sampled from the shipped intention head or its turn-class prior, or the lanes the log drove (an oracle).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Scenario } from '../scenario.ts';
import { withLogRoutes } from '../training/logExpert.ts';
import type { TurnPrior } from './baselines.ts';
import {
  type ForkProbabilities,
  headForkProbabilities,
  priorForkProbabilities,
} from './forkProbabilities.ts';
import { IntentionHead } from './intentionModel.ts';
import { withSampledIntentions } from './sampleIntentions.ts';

export const INTENTION_MODES = ['straightest', 'head', 'prior', 'log'] as const;
export type IntentionMode = (typeof INTENTION_MODES)[number];

export const SHIPPED_INTENTION_MODEL = fileURLToPath(new URL('../../models/intention.onnx', import.meta.url));

/** The scenario of each rollout under a mode (undefined: the scenario as given). */
export type ScenarioFor = (s: Scenario, si: number, n: number) => Scenario;

/**
 * The per-rollout scenarios of `mode` for these scenarios: fork probabilities are computed once per
 * scenario, and rollout n of scenario si samples its routes from a generator seeded by (seed, si, n).
 */
export async function intentionScenarios(
  mode: string,
  scenarios: readonly Scenario[],
  seed = 0,
  model = SHIPPED_INTENTION_MODEL,
): Promise<ScenarioFor | undefined> {
  if (!(INTENTION_MODES as readonly string[]).includes(mode))
    throw new InputError('--intentions', `must be one of ${INTENTION_MODES.join(', ')}, got '${mode}'`);
  if (mode === 'straightest') return undefined;
  if (mode === 'log') {
    const logged = scenarios.map((s) => withLogRoutes(s));
    return (_s, si) => logged[si];
  }
  let probs: ForkProbabilities[];
  if (mode === 'prior') {
    const meta = model.replace(/\.onnx$/, '.json');
    if (!fs.existsSync(meta)) throw new InputError(meta, 'no intention metadata (its turnPrior is needed)');
    const prior = (JSON.parse(fs.readFileSync(meta, 'utf8')) as { turnPrior?: TurnPrior }).turnPrior;
    if (!prior) throw new InputError(meta, 'no turnPrior in the intention metadata');
    probs = scenarios.map((s) => priorForkProbabilities(prior, s));
  } else {
    if (!fs.existsSync(model)) throw new InputError(model, 'no such intention model');
    const head = await IntentionHead.fromBytes(fs.readFileSync(model));
    probs = [];
    for (const s of scenarios) probs.push(await headForkProbabilities(head, s));
    await head.dispose();
  }
  return (s, si, n) => withSampledIntentions(s, probs[si], new Rng(seed).fork(`intention/${si}/${n}`));
}
