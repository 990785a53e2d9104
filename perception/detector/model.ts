// The trained detector as a plain ONNX file and how to run it: the inference graph (symbolic grid size)
// exported with its settings in the model's metadata, and a Detector that turns one sweep into Boxes.
import fs from 'node:fs';
import type { Boxes } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { exportOnnxBytes } from '../../core/nn/export.ts';
import { Graph } from '../../core/nn/graph.ts';
import { decodeModel } from '../../core/nn/onnxProto.ts';
import { createSession, ort, type RuntimeOptions } from '../../core/nn/runtime.ts';
import {
  BEV_CHANNEL_COUNT,
  BEV_CHANNELS,
  type BevFeatureConfig,
  type BevPoints,
  bevFeatures,
  centredGrid,
  estimateGroundZ,
  type GroundLevelConfig,
} from './bevGrid.ts';
import type { DetectorConfig } from './config.ts';
import { type DecodeConfig, decodeBoxes } from './decode.ts';
import { type DetectorNetwork, INPUT_MULTIPLE, type NetworkConfig, OUTPUT_STRIDE } from './network.ts';
import { outputGrid, REG_CHANNELS } from './targets.ts';

export const DETECTOR_FORMAT = 'drivekit-detector/1';
/** Metadata key of the ONNX model that holds the DetectorSpec as JSON. */
export const DETECTOR_METADATA_KEY = 'drivekit.detector';

/** Everything needed to run an exported model besides its weights. */
export interface DetectorSpec {
  format: typeof DETECTOR_FORMAT;
  /** Cell size the model was trained at (the grid range can change; the cell size cannot). */
  cellM: number;
  /** Default half side of the inference grid. */
  rangeM: number;
  features: BevFeatureConfig;
  groundLevel: GroundLevelConfig;
  decode: DecodeConfig;
  network: NetworkConfig;
  outputStride: number;
  inputMultiple: number;
  bevChannels: readonly string[];
  regChannels: readonly string[];
  /** Free-form facts about the training run (round, steps, logs). */
  training: Record<string, unknown>;
}

export function detectorSpec(cfg: DetectorConfig, training: Record<string, unknown> = {}): DetectorSpec {
  return {
    format: DETECTOR_FORMAT,
    cellM: cfg.grid.cellM,
    rangeM: cfg.grid.rangeM,
    features: cfg.features,
    groundLevel: cfg.groundLevel,
    decode: cfg.decode,
    network: cfg.network,
    outputStride: OUTPUT_STRIDE,
    inputMultiple: INPUT_MULTIPLE,
    bevChannels: BEV_CHANNELS,
    regChannels: REG_CHANNELS,
    training,
  };
}

/**
 * The inference model of `net` with its current weights: input `bev` [batch, 5, rows, cols] with symbolic
 * sizes, outputs `heatmap` (logits) and `boxes`. Weights are initialisers; the spec goes into the metadata.
 */
export function exportDetectorBytes(
  net: DetectorNetwork,
  cfg: DetectorConfig,
  training: Record<string, unknown> = {},
): Uint8Array {
  const g = new Graph({ name: 'drivekit_bev_detector' });
  const bev = g.input('bev', ['batch', BEV_CHANNEL_COUNT, 'rows', 'cols']);
  const heads = net(bev);
  return exportOnnxBytes(
    g,
    { heatmap: heads.heatmap, boxes: heads.boxes },
    {
      docString:
        'drivekit self-trained class-agnostic BEV detector (OYSTER-style); see metadata drivekit.detector',
      metadata: {
        [DETECTOR_METADATA_KEY]: JSON.stringify(detectorSpec({ ...cfg, network: net.config }, training)),
      },
    },
  );
}

/** Read the DetectorSpec from ONNX bytes; InputError naming `file` when it is missing or foreign. */
export function readDetectorSpec(bytes: Uint8Array, file: string): DetectorSpec {
  let json: string | undefined;
  try {
    json = decodeModel(bytes).metadataProps?.find((p) => p.key === DETECTOR_METADATA_KEY)?.value;
  } catch (e) {
    throw new InputError(file, `not an ONNX model (${(e as Error).message})`);
  }
  if (!json) throw new InputError(file, `not a drivekit detector (no '${DETECTOR_METADATA_KEY}' metadata)`);
  const spec = JSON.parse(json) as DetectorSpec;
  if (spec.format !== DETECTOR_FORMAT)
    throw new InputError(file, `detector format ${spec.format}, expected ${DETECTOR_FORMAT}`);
  return spec;
}

export interface DetectorOptions extends RuntimeOptions {
  /** Half side of the inference grid (default: the model's); rounded to whole input multiples. */
  rangeM?: number;
  /** Decoding overrides (score threshold, NMS IoU, …). */
  decode?: Partial<DecodeConfig>;
}

export interface DetectTiming {
  featuresMs: number;
  networkMs: number;
  decodeMs: number;
}

/** A loaded detector: one onnxruntime session and the buffers of one grid. Dispose when done. */
export class Detector {
  readonly lastTiming: DetectTiming = { featuresMs: 0, networkMs: 0, decodeMs: 0 };
  private readonly input: Float32Array;
  private readonly tensor: ort.Tensor;

  private constructor(
    readonly spec: DetectorSpec,
    private readonly session: ort.InferenceSession,
    readonly rangeM: number,
    readonly decode: DecodeConfig,
    private readonly file = 'detector',
  ) {
    const grid = this.grid;
    this.input = new Float32Array(BEV_CHANNEL_COUNT * grid.rows * grid.cols);
    this.tensor = new ort.Tensor('float32', this.input, [1, BEV_CHANNEL_COUNT, grid.rows, grid.cols]);
  }

  static async fromBytes(bytes: Uint8Array, file: string, opts: DetectorOptions = {}): Promise<Detector> {
    const spec = readDetectorSpec(bytes, file);
    const unit = spec.cellM * spec.inputMultiple;
    const rangeM = Math.max(1, Math.round((opts.rangeM ?? spec.rangeM) / (unit / 2))) * (unit / 2);
    const session = await createSession(bytes, opts);
    const missing = [
      ...['bev'].filter((n) => !session.inputNames.includes(n)),
      ...['heatmap', 'boxes'].filter((n) => !session.outputNames.includes(n)),
    ];
    if (missing.length) {
      await session.release();
      throw new InputError(
        file,
        `not a drivekit detector graph: no ${missing.join(', ')} (inputs ${session.inputNames.join(', ')}; outputs ${session.outputNames.join(', ')})`,
      );
    }
    return new Detector(spec, session, rangeM, { ...spec.decode, ...opts.decode }, file);
  }

  static async load(file: string, opts: DetectorOptions = {}): Promise<Detector> {
    if (!fs.existsSync(file)) throw new InputError(file, 'no such model file');
    if (!fs.statSync(file).isFile())
      throw new InputError(file, 'is a directory, expected an .onnx model file');
    return Detector.fromBytes(new Uint8Array(fs.readFileSync(file)), file, opts);
  }

  /** The inference grid (centred on the ego). */
  get grid() {
    return centredGrid(this.rangeM, this.spec.cellM);
  }

  /** Raw head outputs for one sweep (for tests and export checks). */
  async heads(pts: BevPoints): Promise<{ heatmap: Float32Array; boxes: Float32Array; groundZ: number }> {
    const t0 = performance.now();
    const groundZ = estimateGroundZ(pts, this.spec.groundLevel);
    bevFeatures(pts, this.grid, groundZ, this.spec.features, this.input);
    const t1 = performance.now();
    const out = await this.session.run({ bev: this.tensor });
    this.checkShapes(out);
    this.lastTiming.featuresMs = t1 - t0;
    this.lastTiming.networkMs = performance.now() - t1;
    return { heatmap: out.heatmap.data as Float32Array, boxes: out.boxes.data as Float32Array, groundZ };
  }

  /**
   * The heads must have the shapes the decoder reads: heatmap [1, 1, rows/s, cols/s] and boxes
   * [1, regression channels, rows/s, cols/s]. A graph of another shape carrying a detector's metadata
   * would otherwise be decoded as garbage boxes.
   */
  private checkShapes(out: ort.InferenceSession.ReturnType): void {
    const g = outputGrid(this.grid, this.spec.outputStride);
    const want: Record<string, number[]> = {
      heatmap: [1, 1, g.rows, g.cols],
      boxes: [1, this.spec.regChannels.length, g.rows, g.cols],
    };
    for (const [name, dims] of Object.entries(want)) {
      const t = out[name];
      const got = t ? [...t.dims] : [];
      if (t?.type !== 'float32' || got.length !== dims.length || got.some((d, i) => d !== dims[i]))
        throw new InputError(
          this.file,
          `model output '${name}' is ${t?.type ?? 'missing'} [${got.join(', ')}], the detector needs float32 [${dims.join(', ')}] for a ${this.grid.rows}×${this.grid.cols} grid`,
        );
    }
  }

  /** Boxes of one sweep (vehicle frame), scored, after NMS. */
  async detect(pts: BevPoints, frameIndex = 0): Promise<Boxes> {
    const h = await this.heads(pts);
    const t = performance.now();
    const boxes = decodeBoxes(
      h.heatmap,
      h.boxes,
      outputGrid(this.grid, this.spec.outputStride),
      h.groundZ,
      frameIndex,
      this.decode,
    );
    this.lastTiming.decodeMs = performance.now() - t;
    return boxes;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
