// The stage table of `drivekit stage <name>`: name, one-line summary, and a lazy loader, so a stage's
// heavy imports (onnxruntime, …) load only when it runs. Adding a stage = one file + one line here.
import type { Command } from 'commander';

export interface StageModule {
  /** Adds `<name>` with its options and action to the `stage` command. */
  register(stage: Command): void;
}

export interface StageSpec {
  name: string;
  summary: string;
  load: () => Promise<StageModule>;
}

export const STAGES: StageSpec[] = [
  {
    name: 'replay',
    summary: "publish a log's frames as SensorFrame messages",
    load: () => import('./replay.ts'),
  },
  {
    name: 'record',
    summary: 'write received SensorFrame messages to a log',
    load: () => import('./record.ts'),
  },
  {
    name: 'record-boxes',
    summary: 'write received Boxes to an Arrow file, each frame once and in order (optionally tracked)',
    load: () => import('./recordBoxes.ts'),
  },
  {
    name: 'record-tokens',
    summary:
      'write received Tokens (and forecasts) as tokens.arrow (and a forecast file), each frame once and in order',
    load: () => import('./recordTokens.ts'),
  },
  {
    name: 'relay',
    summary: 'forward batches between endpoints (e.g. PULL → PUB)',
    load: () => import('./relay.ts'),
  },
  {
    name: 'forward',
    summary: 'pass every message on unchanged, topics kept (several publishers into one PUB)',
    load: () => import('./forward.ts'),
  },
  {
    name: 'discover',
    summary: 'SensorFrames in, discovered Boxes out (ground, clusters, boxes)',
    load: () => import('./discover.ts'),
  },
  {
    name: 'detect',
    summary: 'SensorFrames in, Boxes of a trained BEV detector (ONNX) out',
    load: () => import('./detect.ts'),
  },
  {
    name: 'tokenize',
    summary: 'SensorFrames in, BEV token grids of the LiDAR tokenizer (ONNX) out',
    load: () => import('./tokenize.ts'),
  },
  {
    name: 'forecast',
    summary:
      "SensorFrames in, the world model's predicted sweep ahead of each out (poses by constant velocity)",
    load: () => import('./forecast.ts'),
  },
  {
    name: 'agents',
    summary: 'AgentObservations in, AgentActions of a learned agent policy (ONNX) out',
    load: () => import('./agents.ts'),
  },
  {
    name: 'keygen',
    summary: 'write a CURVE key pair for encrypted endpoints',
    load: () => import('./keygen.ts'),
  },
];
