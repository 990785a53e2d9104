// Demo step: import the real KITTI raw sequence 0048 (22 HDL-64E sweeps, ICP poses) from
// ../shared/data into a log and report its summary.
import fs from 'node:fs';
import path from 'node:path';
import { realData } from '../../core/paths.ts';
import { createProgress } from '../../core/progress.ts';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { formatLogSummary, logSummary } from '../report/logSummary.ts';
import type { DemoStep } from './context.ts';

export const importKitti: DemoStep = {
  name: 'import KITTI 0048',
  async run(ctx) {
    const src = realData('kitti-0048');
    if (!fs.existsSync(src)) {
      ctx.report.push({ title: 'Real KITTI sequence', body: `skipped: ${src} not found` });
      return;
    }
    const out = path.join(ctx.outDir, 'kitti-0048');
    const meta = await importLog(src, 'pcd', out, {
      posesPath: path.join(src, 'poses_icp_estimated.txt'),
      rateHz: 10,
      overwrite: true,
      progress: (n) => createProgress('import kitti', n),
    });
    ctx.logs.set('kitti', { dir: out, meta });
    const log = await LogReader.open(out);
    try {
      const s = logSummary(log);
      ctx.figures['kitti frames'] = s.frames;
      ctx.figures['kitti points/frame (median)'] = s.points.median;
      ctx.report.push({
        title: 'Real KITTI sequence 2011_09_26_0048',
        body: '```\n' + formatLogSummary(s) + '\n```',
      });
    } finally {
      await log.close();
    }
  },
};
