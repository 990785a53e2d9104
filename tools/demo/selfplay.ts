// Demo step: synthetic scenarios for autonomy training from the shipped asymmetric self-play teacher
// (docs/selfplay.md) — a few scenarios, no training — exported with their datasheet, which joins the report.
import fs from 'node:fs';
import path from 'node:path';
import { runGeneratorExport, SHIPPED_TEACHERS } from '../commands/exportSelfplay.ts';
import type { DemoStep } from './context.ts';

/** Scenarios the demo exports (each is judged by one student rollout, well under a second). */
export const DEMO_SELFPLAY = { count: 7, quickCount: 3, seed: 1 } as const;

export const selfplayDemo: DemoStep = {
  name: 'self-play scenario export',
  async run(ctx) {
    if (!fs.existsSync(SHIPPED_TEACHERS.selfplay)) {
      ctx.report.push({
        title: 'Self-play scenarios',
        body: `Skipped: ${SHIPPED_TEACHERS.selfplay} not found (train one with drivekit train-selfplay).`,
      });
      return;
    }
    const out = path.join(ctx.outDir, 'selfplay');
    const started = Date.now();
    const count = ctx.quick ? DEMO_SELFPLAY.quickCount : DEMO_SELFPLAY.count;
    const r = await runGeneratorExport({
      generator: 'selfplay',
      count,
      seed: DEMO_SELFPLAY.seed,
      out,
      command: `drivekit export --generator selfplay --count ${count} --seed ${DEMO_SELFPLAY.seed} --out ${out} (npm start)`,
    });
    const d = r.datasheet as {
      difficulty: { student_failure_rate: number };
      solvability: { proposed_solvable_rate: number };
    };
    ctx.figures['selfplay student failure'] = +d.difficulty.student_failure_rate.toFixed(2);
    ctx.figures['selfplay proposals solvable'] = +d.solvability.proposed_solvable_rate.toFixed(2);
    const sheet = fs
      .readFileSync(path.join(out, 'datasheet.md'), 'utf8')
      .replace(/^# /, '### ')
      .replace(/^## /gm, '#### ');
    ctx.report.push({
      title: 'Self-play scenarios',
      body:
        `\`drivekit export --generator selfplay --count ${r.scenarios}\` with the shipped teacher (models/selfplay-teacher.onnx) and student (models/agent.onnx), ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s; written to ${out} (Arrow scenarios, Parquet, WOMD, GPUDrive JSON). Its datasheet:\n\n${sheet}`,
    });
  },
};
