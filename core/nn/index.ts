// drivekit's learning engine: write a model in the graph API, differentiate it, train it on
// onnxruntime, checkpoint it, export it as plain ONNX. See README "Learning engine".
export { Graph, Tensor, attr, type Node, type TensorLike, type GraphOptions } from './graph.ts';
export * as ops from './ops/index.ts';
export * from './ops/index.ts';
export { grad, type GradContext, type GradRule } from './autodiff.ts';
export { GRAD_RULES } from './gradients.ts';
export { ParamStore, type Parameter, type ParamKind } from './params.ts';
export type { Init } from './init.ts';
export { Rng, type RngState } from '../rng.ts';
export * from './layers.ts';
export * from './attention.ts';
export * from './losses.ts';
export { GraphSession, type Feed, type Feeds } from './graphSession.ts';
export {
  createSession,
  cudaAvailable,
  DeviceError,
  RUNTIME_DEFAULTS,
  type Device,
  type RuntimeOptions,
} from './runtime.ts';
export {
  sgd,
  adamW,
  ADAMW_DEFAULTS,
  SGD_DEFAULTS,
  type Optimizer,
  type AdamWOptions,
  type SgdOptions,
} from './optimizers.ts';
export { constantLr, warmupCosine, type LrSchedule } from './schedules.ts';
export { clipGradNorm, globalNorm } from './clip.ts';
export { Trainer, type TrainerOptions, type StepResult } from './trainer.ts';
export { trainLoop, type TrainLoopOptions, type TrainLoopResult } from './trainLoop.ts';
export { saveCheckpoint, loadCheckpoint, type TrainingState } from './checkpoint.ts';
export {
  encodeSafetensors,
  decodeSafetensors,
  readSafetensors,
  writeSafetensors,
  type NamedTensor,
} from './safetensors.ts';
export { exportOnnx, exportOnnxBytes, type ExportOptions } from './export.ts';
export { gradCheck, type GradCheckOptions, type GradCheckResult } from './gradcheck.ts';
export { ShapeError, type Dim, type Shape } from './shape.ts';
export type { DType, FloatType, TypedArray } from './dtype.ts';
