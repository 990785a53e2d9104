// The depth error a perfect binary voxel grid of each sweep renders at, per grid: how fine the z cells must
// be before a tokenizer can reach a median error (`node --import tsx tools/report/gridFloor.ts [--origin-rays] <log>...`;
// rays from each return's laser where the log says where its lasers sit, as eval-tokenizer renders them).
import { LogReader } from '../../datasets/logstore.ts';
import { tokenizerConfig } from '../../worldmodel/config.ts';
import { binaryGrids, depthErrorFigures, renderSigned, strideRays } from '../../worldmodel/gridFloor.ts';
import { laserBlocksOf, raysFromLasers } from '../../worldmodel/laserLines.ts';
import { sensorOrigin, sensorPoints } from '../../worldmodel/sweep.ts';
import { buildRenderer } from '../../worldmodel/tokenizerModel.ts';

const originRays = process.argv.includes('--origin-rays');
const logs = process.argv.slice(2).filter((a) => a !== '--origin-rays');
const variants = [
  { name: 'z 16 (0.375 m), step 0.2', over: {} },
  { name: 'z 32 (0.1875 m), step 0.2', over: { grid: { cellsZ: 32 } } },
  { name: 'z 48 (0.125 m), step 0.1', over: { grid: { cellsZ: 48 }, render: { stepM: 0.1 } } },
  { name: 'z 32 (0.1875 m), step 0.1', over: { grid: { cellsZ: 32 }, render: { stepM: 0.1 } } },
];
for (const v of variants) {
  const cfg = tokenizerConfig(v.over);
  const renderer = await buildRenderer(cfg);
  for (const dir of logs) {
    const log = await LogReader.open(dir);
    const lasers = originRays ? null : laserBlocksOf(log.meta, dir);
    const chunks: Float32Array[] = [];
    for (const i of [0, Math.floor(log.frameCount / 2), log.frameCount - 1]) {
      const pts = sensorPoints((await log.readFrame(i)).points, sensorOrigin(log.meta));
      const fromOrigin = strideRays(cfg, pts, 8);
      const rays = lasers ? raysFromLasers(fromOrigin, lasers) : fromOrigin;
      chunks.push(await renderSigned(cfg, renderer, binaryGrids(cfg, pts, `${dir} frame ${i}`), rays));
    }
    await log.close();
    const all = new Float32Array(chunks.reduce((a, c) => a + c.length, 0));
    let o = 0;
    for (const c of chunks) {
      all.set(c, o);
      o += c.length;
    }
    const f = depthErrorFigures(all);
    console.log(
      JSON.stringify({
        grid: v.name,
        log: dir,
        rays_from: lasers ? 'lasers' : 'origin',
        rays: all.length,
        ...f,
      }),
    );
  }
  await renderer.dispose();
}
