// The runtime options: the CUDA device fails with an actionable error when onnxruntime's CUDA
// provider is not installed (as here), unknown devices are refused, thread counts are honoured.
import { describe, expect, it } from 'vitest';
import * as nn from '../../../core/nn/index.ts';
import { sessionOptions } from '../../../core/nn/runtime.ts';

function tinyGraph() {
  const ps = new nn.ParamStore();
  const lin = nn.linear(ps, 'lin', 3, 2);
  const g = new nn.Graph();
  const y = lin(g.input('x', [1, 3]));
  return { g, y };
}

describe('runtime', () => {
  // One test for whichever case this machine is: no CUDA provider (the error path) or an installed one.
  it('device cuda runs where the CUDA provider is installed, else fails saying how to install it', async () => {
    const { g, y } = tinyGraph();
    if (!nn.cudaAvailable()) {
      await expect(nn.GraphSession.create(g, { y }, { device: 'cuda' })).rejects.toThrow(nn.DeviceError);
      await expect(nn.GraphSession.create(g, { y }, { device: 'cuda' })).rejects.toThrow(
        /ONNXRUNTIME_NODE_INSTALL=cuda12/,
      );
      return;
    }
    const s = await nn.GraphSession.create(g, { y }, { device: 'cuda' });
    const r = await s.run({ x: new Float32Array([1, 2, 3]) });
    expect(r.y.dims).toEqual([1, 2]);
    await s.dispose();
  });

  it('refuses unknown devices and sets threads, defaulting to every core', async () => {
    expect(() => sessionOptions({ device: 'tpu' as nn.Device })).toThrow(/unknown device 'tpu'/);
    expect(sessionOptions({ threads: 3 }).intraOpNumThreads).toBe(3);
    expect(sessionOptions({}).intraOpNumThreads).toBeGreaterThanOrEqual(1);
    expect(sessionOptions({ device: 'cpu' }).executionProviders).toEqual(['cpu']);
    expect(sessionOptions({ device: 'cuda' }).executionProviders).toEqual(['cuda', 'cpu']);
  });

  it('feeds are checked against the graph inputs', async () => {
    const { g, y } = tinyGraph();
    const s = await nn.GraphSession.create(g, { y }, { threads: 1 });
    await expect(s.run({})).rejects.toThrow(/missing feed for input 'x'/);
    await expect(s.run({ x: new Float32Array(4) })).rejects.toThrow(
      /4 values for shape \[1,3\]|does not fit/,
    );
    await expect(s.run({ x: new Float64Array(3) })).rejects.toThrow(/expected float32 data/);
    await s.dispose();
  });
});
