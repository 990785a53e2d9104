// Demo step: discovery and the detector again, this time as `drivekit pipeline` processes over ZeroMQ/Arrow
// (replay → stage → recorder), cross-checked value for value against the offline results on the same log.
import fs from 'node:fs';
import path from 'node:path';
import type { Boxes } from '../../core/arrow/records.ts';
import { readBoxesFile } from '../../datasets/logFiles.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { Detector } from '../../perception/detector/model.ts';
import { detectLog } from '../../perception/selftrain.ts';
import { runPipeline } from '../commands/pipeline.ts';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import { resolvePipelineConfig } from '../pipeline/config.ts';
import type { DemoStep } from './context.ts';

/** Whether two Boxes hold the same values, column by column. */
function sameBoxes(a: Boxes, b: Boxes): boolean {
  return (Object.keys(a) as (keyof Boxes)[]).every((k) => {
    const x = a[k] as ArrayLike<unknown>;
    const y = b[k] as ArrayLike<unknown>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++)
      if (x[i] !== y[i] && !(Number.isNaN(x[i]) && Number.isNaN(y[i]))) return false;
    return true;
  });
}

export const pipelineDemo: DemoStep = {
  name: 'pipeline (stages as processes)',
  async run(ctx) {
    // The real sequence when there is one (22 frames: the detector's share stays short), else the synthetic log.
    const role = ctx.logs.has('kitti') ? 'kitti' : 'synthetic';
    const entry = ctx.logs.get(role);
    if (!entry || !fs.existsSync(path.join(entry.dir, 'tracks.arrow'))) {
      ctx.report.push({
        title: 'Pipeline',
        body: 'skipped: no log with offline discovery results in this run',
      });
      return;
    }
    const withDetector = fs.existsSync(SHIPPED_MODEL);
    const out = path.join(ctx.outDir, `pipeline-${role}`);
    const cfg = resolvePipelineConfig({
      log: entry.dir,
      out,
      stages: withDetector ? ['discover', 'detect'] : ['discover'],
      force: true,
    });
    const run = await runPipeline(cfg, new AbortController().signal);
    const checks: string[] = [];
    let allSame = true;
    const check = (name: string, piped: string, offline: Boxes) => {
      const same = fs.existsSync(piped) && sameBoxes(readBoxesFile(piped), offline);
      allSame &&= same;
      checks.push(`| ${name} | ${offline.cx.length} | ${same ? 'identical' : '**differs**'} |`);
    };
    const log = await LogReader.open(entry.dir);
    try {
      check('discover: detections', path.join(out, 'detections.arrow'), log.readBoxes('detections')!);
      check('discover: tracks', path.join(out, 'tracks.arrow'), log.readBoxes('tracks')!);
      if (withDetector) {
        // The offline detector on the same frames, in this process (what `drivekit detect` runs).
        const detector = await Detector.load(SHIPPED_MODEL);
        try {
          check('detect: boxes', path.join(out, 'detector.arrow'), await detectLog(detector, log));
        } finally {
          await detector.dispose();
        }
      }
    } finally {
      await log.close();
    }
    ctx.figures['pipeline frames/s (processes, incl. start-up)'] = Number(run.frames_per_s.toFixed(2));
    ctx.figures['pipeline vs offline outputs'] = allSame ? 'identical' : 'DIFFER';
    const procs = run.processes.map((p) => `| ${p.id} | ${p.starts} | ${p.peak_rss_mb ?? '–'} |`).join('\n');
    ctx.report.push({
      title: 'Pipeline: the stages as processes over ZeroMQ/Arrow',
      body:
        `\`drivekit pipeline\` on the ${role} log (${run.frames} frames, ${run.elapsed_s.toFixed(1)} s with process ` +
        `start-up): each stage its own process, fed by a replay and ending in a recorder (docs/pipeline.md).\n\n` +
        `| output | boxes (offline) | pipeline vs offline |\n| --- | ---: | --- |\n${checks.join('\n')}\n\n` +
        `| process | starts | peak RSS (MB) |\n| --- | ---: | ---: |\n${procs}`,
    });
    if (!allSame) throw new Error(`pipeline outputs differ from the offline ones (see ${out})`);
  },
};
