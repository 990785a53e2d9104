// The trained forecaster as one plain ONNX file (future-frame logits for any batch) with its config and the
// training facts in the metadata, and how to run it.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import { exportOnnxBytes } from '../core/nn/export.ts';
import type { Feeds } from '../core/nn/graphSession.ts';
import { toOrtTensor } from '../core/nn/graphSession.ts';
import { decodeModel } from '../core/nn/onnxProto.ts';
import { createSession, ort, type RuntimeOptions } from '../core/nn/runtime.ts';
import { Graph } from '../core/nn/graph.ts';
import type { ForecasterConfig } from './forecastConfig.ts';
import { buildInferenceGraph } from './forecasterGraph.ts';
import { forecasterInputs, type ForecasterNetwork } from './forecasterNetwork.ts';
import { makeDirs } from '../core/dirs.ts';

export const FORECASTER_FORMAT = 'drivekit-forecaster/1';
export const FORECASTER_METADATA_KEY = 'drivekit.forecaster';

export interface ForecasterSpec {
  format: typeof FORECASTER_FORMAT;
  config: ForecasterConfig;
  codes: number;
  tokensXY: number;
  /** Facts about the training run: logs, tokenizer, steps, held-out figures. */
  training: Record<string, unknown>;
}

export async function exportForecaster(
  net: ForecasterNetwork,
  file: string,
  training: Record<string, unknown>,
): Promise<void> {
  const spec: ForecasterSpec = {
    format: FORECASTER_FORMAT,
    config: net.config,
    codes: net.codes,
    tokensXY: net.tokensXY,
    training,
  };
  const ig = buildInferenceGraph(net);
  makeDirs(path.dirname(path.resolve(file)));
  await writeFileAtomic(
    file,
    exportOnnxBytes(
      ig.graph,
      { logits: ig.logits },
      {
        docString:
          'drivekit world model (Copilot4D-style discrete diffusion); see metadata drivekit.forecaster',
        metadata: { [FORECASTER_METADATA_KEY]: JSON.stringify(spec) },
      },
    ),
  );
}

export function readForecasterSpec(file: string): ForecasterSpec {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such file (a world model is one .onnx file)');
  let json: string | undefined;
  try {
    json = decodeModel(fs.readFileSync(file)).metadataProps?.find(
      (p) => p.key === FORECASTER_METADATA_KEY,
    )?.value;
  } catch (e) {
    throw new InputError(file, `not an ONNX model (${(e as Error).message})`);
  }
  if (!json)
    throw new InputError(file, `not a drivekit world model (no '${FORECASTER_METADATA_KEY}' metadata)`);
  const spec = JSON.parse(json) as ForecasterSpec;
  if (spec.format !== FORECASTER_FORMAT)
    throw new InputError(file, `world model format ${spec.format}, expected ${FORECASTER_FORMAT}`);
  return spec;
}

/** A loaded forecaster: feeds → future logits. */
export class Forecaster {
  private constructor(
    readonly file: string,
    readonly spec: ForecasterSpec,
    private readonly session: ort.InferenceSession,
    private readonly inputs: ReturnType<typeof forecasterInputs>,
  ) {}

  static async load(file: string, runtime: RuntimeOptions = {}): Promise<Forecaster> {
    const spec = readForecasterSpec(file);
    const session = await createSession(fs.readFileSync(file), runtime);
    const inputs = forecasterInputs(new Graph(), spec.config, spec.tokensXY, 'batch');
    return new Forecaster(file, spec, session, inputs);
  }

  get config(): ForecasterConfig {
    return this.spec.config;
  }

  async logits(feeds: Feeds): Promise<Float32Array> {
    const all: Record<string, ort.Tensor> = {};
    for (const t of Object.values(this.inputs)) all[t.name] = toOrtTensor(t, feeds[t.name]);
    const out = await this.session.run(all);
    return out.logits.data as Float32Array;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
