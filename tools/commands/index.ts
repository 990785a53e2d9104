// The command table of the CLI: name, one-line summary, and a lazy loader for the module that
// registers the full command (options, help, action) with commander.
import type { Command } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

export interface CommandSpec {
  name: string;
  summary: string;
  load: () => Promise<CommandModule>;
}

export const COMMANDS: CommandSpec[] = [
  {
    name: 'import',
    summary: 'import a dataset (KITTI, PCD, nuScenes, AV2, LAS/LAZ, PLY; format detected) into a log',
    load: () => import('./import.ts'),
  },
  {
    name: 'info',
    summary: 'summarise a log: frames, points, duration, extent, labels',
    load: () => import('./info.ts'),
  },
  {
    name: 'verify',
    summary:
      "check a log against its manifest (every file's size and CRC32C, structure); exit 1 on a problem",
    load: () => import('./verify.ts'),
  },
  {
    name: 'synth',
    summary: 'generate a synthetic log: procedural town, traffic and simulated LiDAR with exact labels',
    load: () => import('./synth.ts'),
  },
  {
    name: 'stage',
    summary: 'run a stream stage (replay, record, relay, …) as its own process over ZeroMQ',
    load: () => import('./stage.ts'),
  },
  {
    name: 'pipeline',
    summary: 'run stages as supervised processes over ZeroMQ/Arrow (restarts, resends, one progress bar)',
    load: () => import('./pipeline.ts'),
  },
  {
    name: 'discover',
    summary: 'discover objects without labels (ground, clusters, boxes, tracks, refinement) into a log',
    load: () => import('./discover.ts'),
  },
  {
    name: 'odometry',
    summary: 'estimate poses from the sweeps (scan-to-map ICP, KISS-ICP style) into poses.arrow',
    load: () => import('./odometry.ts'),
  },
  {
    name: 'eval',
    summary: 'score boxes against ground truth: AP by range (BEV/3D IoU) and distance-to-collision',
    load: () => import('./eval.ts'),
  },
  {
    name: 'selftrain',
    summary:
      'self-train the BEV detector on unlabelled logs (detect → track → refine → retrain, per-round AP)',
    load: () => import('./selftrain.ts'),
  },
  {
    name: 'detect',
    summary: 'run a trained BEV detector (ONNX) on a log and write its Boxes',
    load: () => import('./detect.ts'),
  },
  {
    name: 'train-tokenizer',
    summary: "train the world model's LiDAR tokenizer (VQ-VAE with differentiable ray-depth rendering)",
    load: () => import('./trainTokenizer.ts'),
  },
  {
    name: 'tokenize',
    summary: "encode a log's sweeps into BEV token grids (tokens.arrow) with the LiDAR tokenizer",
    load: () => import('./tokenize.ts'),
  },
  {
    name: 'eval-tokenizer',
    summary: "score the tokenizer's reconstruction of a log: depth L1, Chamfer, codebook usage",
    load: () => import('./evalTokenizer.ts'),
  },
  {
    name: 'train-worldmodel',
    summary: 'train the world model: discrete-diffusion forecasting of future token grids (Copilot4D)',
    load: () => import('./trainWorldmodel.ts'),
  },
  {
    name: 'train-ray-depth',
    summary:
      'train the learned ray-depth head: past sweeps along each future ray → its depth (4D-Occ-style rendering)',
    load: () => import('./trainRayDepth.ts'),
  },
  {
    name: 'forecast',
    summary: "forecast a log's future sweeps with the world model (Arrow IPC, vehicle frame of t0)",
    load: () => import('./forecast.ts'),
  },
  {
    name: 'eval-forecast',
    summary:
      'score forecasts by the 4D-Occ protocol beside copy-last, the ray-trace of past sweeps and the multi-sweep prior',
    load: () => import('./evalForecast.ts'),
  },
  {
    name: 'fit-residual',
    summary: "choose the residual forecaster's confidence threshold on training logs (token accuracy)",
    load: () => import('./fitResidual.ts'),
  },
  {
    name: 'sim',
    summary:
      'N seeded rollouts of replay / CV / IDM / learned agents: Sim Agents realism, collision, off-road',
    load: () => import('./sim.ts'),
  },
  {
    name: 'longtail',
    summary: 'generate hard, solvable scenarios (cut-in, hard-brake, …) and score the agents',
    load: () => import('./longtail.ts'),
  },
  {
    name: 'train-agents',
    summary:
      'train the learned traffic agents (behaviour cloning, DAgger, PPO, RTR) in closed loop; exports agent.onnx',
    load: () => import('./trainAgents.ts'),
  },
  {
    name: 'agent-settings',
    summary:
      "copy an agent model with inference settings changed (probe-driven classes, the probe's merge yield)",
    load: () => import('./agentSettings.ts'),
  },
  {
    name: 'train-intention',
    summary: 'fit the junction-intention head (which branch an agent takes at a fork) on logged turn choices',
    load: () => import('./trainIntention.ts'),
  },
  {
    name: 'train-selfplay',
    summary:
      'asymmetric self-play: a teacher learns hard long-tail scenarios it can solve, the learned agent trains on them',
    load: () => import('./trainSelfplay.ts'),
  },
  {
    name: 'export',
    summary:
      'export a log (Parquet, Foxglove MCAP) or simulated scenarios (Arrow, Parquet, JSON, WOMD TFRecord, MCAP, Sim Agents submission)',
    load: () => import('./export.ts'),
  },
  {
    name: 'worker',
    summary: 'run scale-out jobs (discover, detect, eval, sim, …) from a BullMQ queue on Redis',
    load: () => import('./worker.ts'),
  },
  {
    name: 'submit',
    summary: 'enqueue one job per log / scenario file for workers, with an aggregating parent (--wait)',
    load: () => import('./submit.ts'),
  },
  {
    name: 'jobs',
    summary: 'list scale-out queues, job counts and failed jobs with their one-line errors',
    load: () => import('./jobs.ts'),
  },
  {
    name: 'view',
    summary: 'serve a browser viewer (three.js) of a log, sim rollout, scenario or live stream on localhost',
    load: () => import('./view.ts'),
  },
  {
    name: 'demo',
    summary: 'the main job: the whole loop on the embedded synthetic default, with a report',
    load: () => import('./demo.ts'),
  },
  {
    name: 'report',
    summary: "write a run's report.html: one self-contained page (tables, pictures, curves, viewer commands)",
    load: () => import('./report.ts'),
  },
];
