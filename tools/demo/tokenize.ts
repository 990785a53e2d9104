// Demo step: the shipped LiDAR tokenizer (world model, part 1) on sweeps it never trained on — a held-out
// synthetic log and the real KITTI sequence — with a reconstruction table and picture; tokens.arrow written.
import fs from 'node:fs';
import path from 'node:path';
import { tokensToBatch } from '../../core/arrow/codec.ts';
import { createProgress } from '../../core/progress.ts';
import { LogReader, writeLogArrowFile } from '../../datasets/logstore.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { gridGeometry } from '../../worldmodel/config.ts';
import { reconstructFrame, TokenizerScore, type TokenizerFigures } from '../../worldmodel/evalTokenizer.ts';
import { sensorOrigin } from '../../worldmodel/sweep.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { renderReconstruction } from '../report/reconstruction.ts';
import type { DemoContext, DemoStep } from './context.ts';

/** A synthetic town the shipped tokenizer neither trained on (seeds 1–10) nor was chosen on (101–102). */
export const TOKENIZER_DEMO_LOG = { seed: 201, frames: 6, quickFrames: 2 } as const;
/** KITTI 0048 sweeps scored in the demo (spread over its 22; `drivekit eval-tokenizer` scores all). */
export const TOKENIZER_DEMO_KITTI_FRAMES = 8;

interface Scored {
  role: string;
  figures: TokenizerFigures;
  png: string;
}

async function scoreLog(
  ctx: DemoContext,
  tok: Tokenizer,
  role: string,
  dir: string,
  frames: number,
): Promise<Scored> {
  const log = await LogReader.open(dir);
  try {
    const origin = sensorOrigin(log.meta);
    const geo = gridGeometry(tok.config);
    const score = new TokenizerScore(tok.config.quantizer.codes);
    const n = Math.min(frames, log.frameCount);
    const bar = createProgress(`tokenize ${role}`, n);
    const grids = [];
    let png = '';
    for (let k = 0; k < n; k++) {
      const i = Math.floor((k * log.frameCount) / n);
      const frame = await log.readFrame(i);
      const rec = await reconstructFrame(tok, frame, origin, `${dir} frame ${i}`);
      score.add(rec);
      grids.push({
        frameIndex: i,
        rows: geo.tokensXY,
        cols: geo.tokensXY,
        pose: frame.pose,
        tokens: rec.tokens,
      });
      if (k === Math.floor(n / 2)) {
        png = `tokenizer-${role
          .split(' (')[0]
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')}.png`;
        fs.writeFileSync(
          path.join(ctx.outDir, png),
          renderReconstruction(rec.input, rec.decoded, {
            halfExtentM: tok.config.grid.rangeM,
            bevPx: 480,
            elevationDeg: [-25, 3],
            origin,
            title: `${role} frame ${i}: input vs tokenizer reconstruction`,
          }),
        );
      }
      bar.tick();
    }
    bar.stop();
    writeLogArrowFile(path.join(dir, 'tokens.arrow'), [
      tokensToBatch(grids, { token_m: String(geo.tokenM), range_m: String(tok.config.grid.rangeM) }),
    ]);
    return { role, figures: score.figures(), png };
  } finally {
    await log.close();
  }
}

function table(rows: Scored[]): string {
  const head =
    '| sweeps | frames | depth L1 mean (m) | depth L1 median (m) | within 1 m | Chamfer (m²) | near Chamfer (m²) | codes used |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    ({ role, figures: f }) =>
      `| ${role} | ${f.frames} | ${f.depth_l1_mean_m.toFixed(2)} | ${f.depth_l1_median_m.toFixed(2)} | ${(100 * f.within_1m).toFixed(1)} % | ${f.chamfer_m2.toFixed(2)} | ${f.chamfer_near_m2.toFixed(2)} | ${f.codes_used} |`,
  );
  return [head, ...lines].join('\n');
}

export const tokenizeDemo: DemoStep = {
  name: 'tokenize (world model)',
  async run(ctx) {
    if (!fs.existsSync(path.join(SHIPPED_TOKENIZER, 'encoder.onnx'))) {
      ctx.report.push({
        title: 'World model: LiDAR tokenizer',
        body: `skipped: no shipped model at ${SHIPPED_TOKENIZER}`,
      });
      return;
    }
    const tok = await Tokenizer.load(SHIPPED_TOKENIZER);
    try {
      const heldOut = path.join(ctx.outDir, `synthetic-s${TOKENIZER_DEMO_LOG.seed}`);
      const frames = ctx.quick ? TOKENIZER_DEMO_LOG.quickFrames : TOKENIZER_DEMO_LOG.frames;
      await writeSyntheticLog({
        out: heldOut,
        frames,
        seed: TOKENIZER_DEMO_LOG.seed,
        lidar: 'hdl64',
        overwrite: true,
        writeScenario: false,
        progress: (total) => createProgress('synth held-out', total),
      });
      const rows = [
        await scoreLog(ctx, tok, `synthetic seed ${TOKENIZER_DEMO_LOG.seed} (held out)`, heldOut, frames),
      ];
      const kitti = ctx.logs.get('kitti');
      if (kitti)
        rows.push(
          await scoreLog(
            ctx,
            tok,
            'KITTI 0048 (real)',
            kitti.dir,
            ctx.quick ? 2 : TOKENIZER_DEMO_KITTI_FRAMES,
          ),
        );
      const t = tok.spec.training as { steps?: number; logs?: string[] };
      ctx.figures['tokenizer depth L1 median (held-out synthetic)'] =
        `${rows[0].figures.depth_l1_median_m.toFixed(2)} m`;
      ctx.report.push({
        title: 'World model: LiDAR tokenizer',
        body: [
          `The shipped tokenizer (${t.steps ?? '?'} steps on ${t.logs?.length ?? '?'} synthetic logs) encodes each sweep into ` +
            `${gridGeometry(tok.config).tokensXY}² tokens of ${gridGeometry(tok.config).tokenM} m and renders it back along ` +
            "the sweep's own rays. Sweeps below were not trained on; `tokens.arrow` is written into each log.",
          table(rows),
          ...rows.map((r) => `![${r.role}: input vs reconstruction](${r.png})`),
        ].join('\n\n'),
      });
    } finally {
      await tok.dispose();
    }
  },
};
