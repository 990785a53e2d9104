// The steps of `drivekit demo`, in order: each stage of drivekit adds its step here.
import type { DemoStep } from './context.ts';
import { discover } from './discover.ts';
import { importKitti } from './importKitti.ts';
import { pipelineDemo } from './pipeline.ts';
import { selftrainDemo } from './selftrain.ts';
import { selfplayDemo } from './selfplay.ts';
import { simulate } from './simulate.ts';
import { synth } from './synth.ts';
import { tokenizeDemo } from './tokenize.ts';
import { forecastDemo } from './forecast.ts';

export const DEMO_STEPS: DemoStep[] = [
  synth,
  importKitti,
  discover,
  pipelineDemo,
  selftrainDemo,
  tokenizeDemo,
  forecastDemo,
  simulate,
  selfplayDemo,
];
