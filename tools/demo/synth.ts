// Demo step: generate the embedded default input — a synthetic town with traffic, seen by a simulated
// HDL-64E — as a log with exact labels and its scenario (fewer frames with --quick).
import fs from 'node:fs';
import path from 'node:path';
import { realData } from '../../core/paths.ts';
import { createProgress } from '../../core/progress.ts';
import { coreCount } from '../../core/workers.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { formatLogSummary, logSummary } from '../report/logSummary.ts';
import { realismMarkdown, writeRealismFiles } from '../report/realism.ts';
import type { DemoStep } from './context.ts';

/** Settings of the default synthetic log. */
export const DEMO_SYNTH = { seed: 1, lidar: 'hdl64', frames: 100, quickFrames: 12 } as const;

export const synth: DemoStep = {
  name: 'synthetic town log',
  async run(ctx) {
    const out = path.join(ctx.outDir, 'synthetic');
    const frames = ctx.quick ? DEMO_SYNTH.quickFrames : DEMO_SYNTH.frames;
    const started = Date.now();
    const result = await writeSyntheticLog({
      out,
      frames,
      seed: DEMO_SYNTH.seed,
      lidar: DEMO_SYNTH.lidar,
      overwrite: true,
      workers: coreCount(),
      progress: (n) => createProgress('synth', n),
    });
    ctx.logs.set('synthetic', { dir: out, meta: result.meta });
    const seconds = (Date.now() - started) / 1000;
    const log = await LogReader.open(out);
    try {
      const s = logSummary(log);
      ctx.figures['synthetic frames'] = s.frames;
      ctx.figures['synthetic points/frame (median)'] = s.points.median;
      ctx.figures['synthetic labels'] = result.labels.cx.length;
      ctx.report.push({
        title: 'Synthetic town log',
        body:
          `Procedural town (seed ${DEMO_SYNTH.seed}), ${result.town.traffic.tracks.ids.length} agents, ` +
          `${result.sensor.name}; generated in ${seconds.toFixed(1)} s. The scenario (map + tracks) is in ` +
          '`scenario.json` and `scenario/` beside the frames.\n\n```\n' +
          formatLogSummary(s) +
          '\n```',
      });
    } finally {
      await log.close();
    }
    // The same sensor on real streets: the realism table and figure (docs/realism.png is this on 22 frames).
    if (fs.existsSync(realData('kitti-0048')) && fs.existsSync(realData('kitti-object'))) {
      const report = await writeRealismFiles(out, ctx.outDir);
      ctx.figures['synthetic ground share'] = `${(100 * report.synthetic.groundShare).toFixed(1)} %`;
      ctx.figures['KITTI ground share'] = `${(100 * report.kitti.groundShare).toFixed(1)} %`;
      ctx.report.push({
        title: 'Synthetic vs KITTI (same sensor model)',
        body: realismMarkdown(report) + '\n\n![realism](realism.png)',
      });
    }
  },
};
