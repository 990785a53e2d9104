// The trained tokenizer as plain ONNX files and how to run them: encoder (voxels → token grid), decoder
// (token grid → occupancy and density grids) and the parameter-free renderer (grids + rays → depth).
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import { exportOnnxBytes } from '../core/nn/export.ts';
import { Graph } from '../core/nn/graph.ts';
import { GraphSession } from '../core/nn/graphSession.ts';
import { decodeModel } from '../core/nn/onnxProto.ts';
import * as o from '../core/nn/ops/index.ts';
import { createSession, ort, type RuntimeOptions } from '../core/nn/runtime.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { l2Normalize, nearestCode } from './quantizer.ts';
import { sampleRays, samplesPerRay, type Rays } from './rays.ts';
import { rayInputs, renderDepth } from './render.ts';
import { rayFeeds, voxelFeeds } from './tokenizerFeeds.ts';
import { type TokenizerNetwork, voxelInputs } from './tokenizerNetwork.ts';
import { voxelize, type SensorPoints } from './voxelize.ts';
import { makeDirs } from '../core/dirs.ts';

export const TOKENIZER_FORMAT = 'drivekit-tokenizer/1';
export const TOKENIZER_METADATA_KEY = 'drivekit.tokenizer';
export const ENCODER_FILE = 'encoder.onnx';
export const DECODER_FILE = 'decoder.onnx';

export interface TokenizerSpec {
  format: typeof TOKENIZER_FORMAT;
  config: TokenizerConfig;
  /** Facts about the training run: logs, steps, settings, held-out figures. */
  training: Record<string, unknown>;
}

/** Write encoder.onnx and decoder.onnx of `net` (current weights) into `dir`, atomically, with the spec. */
export async function exportTokenizer(
  net: TokenizerNetwork,
  dir: string,
  training: Record<string, unknown>,
): Promise<void> {
  const cfg = net.config;
  const geo = gridGeometry(cfg);
  const t = geo.tokensXY;
  const spec: TokenizerSpec = { format: TOKENIZER_FORMAT, config: cfg, training };
  const metadata = { [TOKENIZER_METADATA_KEY]: JSON.stringify(spec) };
  const enc = new Graph({ name: 'drivekit_lidar_tokenizer_encoder' });
  const z = net.encode(voxelInputs(enc, cfg), 1);
  const tokens = o.reshape(o.cast(nearestCode(z, enc.param(net.codebook)), 'int32'), [1, t, t]);
  const dec = new Graph({ name: 'drivekit_lidar_tokenizer_decoder' });
  const tokIn = dec.input('tokens', [1, t, t], 'int32');
  const codes = o.gather(l2Normalize(dec.param(net.codebook)), o.reshape(tokIn, [t * t]), 0);
  const grids = net.decode(codes, 1);
  makeDirs(dir);
  const doc = 'drivekit LiDAR tokenizer (Copilot4D-style VQ-VAE); see metadata drivekit.tokenizer';
  await writeFileAtomic(
    path.join(dir, ENCODER_FILE),
    exportOnnxBytes(enc, { tokens }, { docString: doc, metadata }),
  );
  await writeFileAtomic(
    path.join(dir, DECODER_FILE),
    exportOnnxBytes(
      dec,
      { occupancy: grids.occupancy, density: grids.density },
      { docString: doc, metadata },
    ),
  );
}

/** Read the spec from an exported file; InputError naming the file when it is not a drivekit tokenizer. */
export function readTokenizerSpec(file: string): TokenizerSpec {
  if (!fs.existsSync(file))
    throw new InputError(file, 'no such file (a tokenizer directory holds encoder.onnx and decoder.onnx)');
  let json: string | undefined;
  try {
    json = decodeModel(fs.readFileSync(file)).metadataProps?.find(
      (p) => p.key === TOKENIZER_METADATA_KEY,
    )?.value;
  } catch (e) {
    throw new InputError(file, `not an ONNX model (${(e as Error).message})`);
  }
  if (!json) throw new InputError(file, `not a drivekit tokenizer (no '${TOKENIZER_METADATA_KEY}' metadata)`);
  const spec = JSON.parse(json) as TokenizerSpec;
  if (spec.format !== TOKENIZER_FORMAT)
    throw new InputError(file, `tokenizer format ${spec.format}, expected ${TOKENIZER_FORMAT}`);
  return spec;
}

export interface DecodedSweep {
  /** [Z · cells · cells] occupancy logits. */
  occupancy: Float32Array;
  /** [Z · cells · cells] density logits. */
  density: Float32Array;
}

/** Rays rendered per renderer call: bounds the sample table to ≈ 75 MB at the default grid. */
export const RENDER_CHUNK_RAYS = 8192;

/** A loaded tokenizer: encode a sweep to tokens, decode tokens to grids, render depth along rays. */
export class Tokenizer {
  private constructor(
    readonly dir: string,
    readonly spec: TokenizerSpec,
    private readonly encoder: ort.InferenceSession,
    private readonly decoder: ort.InferenceSession,
    private readonly renderer: GraphSession,
  ) {}

  get config(): TokenizerConfig {
    return this.spec.config;
  }

  static async load(dir: string, runtime: RuntimeOptions = {}): Promise<Tokenizer> {
    const encFile = path.join(dir, ENCODER_FILE);
    const decFile = path.join(dir, DECODER_FILE);
    const spec = readTokenizerSpec(encFile);
    readTokenizerSpec(decFile);
    const encoder = await createSession(fs.readFileSync(encFile), runtime);
    const decoder = await createSession(fs.readFileSync(decFile), runtime);
    const renderer = await buildRenderer(spec.config, runtime);
    return new Tokenizer(dir, spec, encoder, decoder, renderer);
  }

  /** The token grid of a sweep (row-major tokensXY²); an all-empty sweep is an error naming `source`. */
  async encode(pts: SensorPoints, source = 'sweep'): Promise<Int32Array> {
    const cfg = this.config;
    const v = voxelize(cfg, pts, source);
    if (v.count === 0) throw new InputError(source, 'no point inside the tokenizer region');
    const feeds = voxelFeeds(cfg, v);
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [k, f] of Object.entries(feeds)) {
      const { data, dims } = f as { data: Float32Array; dims: number[] };
      ortFeeds[k] = new ort.Tensor(data instanceof BigInt64Array ? 'int64' : 'float32', data, dims);
    }
    const out = await this.encoder.run(ortFeeds);
    return out.tokens.data as Int32Array;
  }

  async decode(tokens: Int32Array): Promise<DecodedSweep> {
    const t = gridGeometry(this.config).tokensXY;
    const out = await this.decoder.run({ tokens: new ort.Tensor('int32', tokens, [1, t, t]) });
    return { occupancy: out.occupancy.data as Float32Array, density: out.density.data as Float32Array };
  }

  /** Rendered depth of every ray (in chunks of RENDER_CHUNK_RAYS). */
  async render(grids: DecodedSweep, rays: Rays): Promise<Float32Array> {
    const depth = new Float32Array(rays.count);
    for (let a = 0; a < rays.count; a += RENDER_CHUNK_RAYS) {
      const b = Math.min(rays.count, a + RENDER_CHUNK_RAYS);
      const chunk: Rays = {
        count: b - a,
        dirX: rays.dirX.subarray(a, b),
        dirY: rays.dirY.subarray(a, b),
        dirZ: rays.dirZ.subarray(a, b),
        depthM: rays.depthM.subarray(a, b),
        pointIndex: rays.pointIndex.subarray(a, b),
        originZM: rays.originZM?.subarray(a, b),
      };
      const out = await this.renderer.run({
        ...rayFeeds(sampleRays(this.config, chunk)),
        density: grids.density,
        occupancy: grids.occupancy,
      });
      depth.set(out.depth.data as Float32Array, a);
    }
    return depth;
  }

  async dispose(): Promise<void> {
    await this.encoder.release();
    await this.decoder.release();
    await this.renderer.dispose();
  }
}

/** The renderer as its own graph (no parameters): flat grids + a ray sample table → depth. */
export async function buildRenderer(
  cfg: TokenizerConfig,
  runtime: RuntimeOptions = {},
): Promise<GraphSession> {
  const geo = gridGeometry(cfg);
  const cells = geo.cellsZ * geo.cellsXY * geo.cellsXY;
  const S = samplesPerRay(cfg);
  const g = new Graph({ name: 'drivekit_lidar_renderer' });
  const density = g.input('density', [cells]);
  const occupancy = g.input('occupancy', [cells]);
  const rays = rayInputs(g, S);
  const r = renderDepth(density, rays, {
    occupancyFlat: occupancy,
    skipBelow: cfg.render.skipOccupancyBelow,
  });
  return GraphSession.create(g, { depth: r.depth }, runtime);
}
