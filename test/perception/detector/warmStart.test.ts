// Fine-tuning starts from a shipped model's weights: read back from the ONNX file, they give the same
// heads as the model itself, and a file that is no detector is refused naming it.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DETECTOR_CONFIG } from '../../../perception/detector/config.ts';
import { Detector, exportDetectorBytes } from '../../../perception/detector/model.ts';
import { createDetectorNetwork } from '../../../perception/detector/network.ts';
import { detectorParamsFromOnnx } from '../../../perception/detector/warmStart.ts';
import { ParamStore } from '../../../core/nn/params.ts';

describe('detectorParamsFromOnnx', () => {
  it('round-trips an exported model exactly', async () => {
    const params = new ParamStore({ seed: 4 });
    const cfg = { ...DEFAULT_DETECTOR_CONFIG, grid: { rangeM: 6.4, cellM: 0.2 } };
    const net = createDetectorNetwork(params, cfg.network);
    const bytes = exportDetectorBytes(net, cfg);
    const back = detectorParamsFromOnnx(bytes, 'm.onnx');
    for (const p of params.list()) expect(back.get(p.name).data).toEqual(p.data);
    const n = 4000;
    const pts = {
      x: Float32Array.from({ length: n }, (_, i) => 6 * Math.sin(i)),
      y: Float32Array.from({ length: n }, (_, i) => 6 * Math.cos(1.3 * i)),
      z: Float32Array.from({ length: n }, (_, i) => -1.7 + (i % 7) * 0.3),
      intensity: new Float32Array(n).fill(0.3),
    };
    // A fresh network of other initial weights, loaded with the weights read back, exports the same heads.
    const store = new ParamStore({ seed: 99 });
    const net3 = createDetectorNetwork(store, cfg.network);
    store.load(new Map(back.list().map((p) => [p.name, p.data])));
    const a = await Detector.fromBytes(bytes, 'a');
    const b = await Detector.fromBytes(exportDetectorBytes(net3, cfg), 'b');
    try {
      expect((await b.heads(pts)).heatmap).toEqual((await a.heads(pts)).heatmap);
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });

  it('refuses a file that is not a detector, naming it', () => {
    expect(() =>
      detectorParamsFromOnnx(new Uint8Array(fs.readFileSync('package.json')), 'package.json'),
    ).toThrow(/package\.json/);
  });
});
