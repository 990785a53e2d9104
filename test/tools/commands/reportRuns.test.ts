// `drivekit report <dir>` on run folders without report.md: a sim run, a longtail run and a self-training
// run (results.json) each become a page with their own table; a folder with nothing known is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { summariseResult } from '../../../perception/selftrain.ts';
import { drivekit, expectOneLineFailure } from './castLog.ts';

let tmp: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-report-runs-'));
  // Real runs, tiny: one long-tail scenario, and CV rollouts of it.
  await drivekit('longtail', '--kind', 'cut-in', '--count', '1', '--out', path.join(tmp, 'lt'));
  await drivekit(
    'sim',
    '--scenarios',
    path.join(tmp, 'lt', 'cut-in', '0000'),
    '--agents',
    'cv',
    '--rollouts',
    '2',
    '--out',
    path.join(tmp, 'sim'),
  );
}, 60_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const page = async (dir: string) => {
  const { stdout } = await drivekit('report', dir, '--json');
  const r = JSON.parse(stdout) as { from: string | string[] };
  return { from: r.from, html: fs.readFileSync(path.join(dir, 'report.html'), 'utf8') };
};

describe('drivekit report on run folders', () => {
  it('renders a sim run: agents, the metric table with its header, the viewer command', async () => {
    const { from, html } = await page(path.join(tmp, 'sim'));
    expect(from).toEqual(['sim']);
    expect(html).toContain('<h2 id="simulation">Simulation</h2>');
    expect(html).toContain('Agents <strong>cv</strong>, 1 scenario(s) × 2 rollout(s)');
    expect(html).toContain('<th style="text-align:right">collision_rate</th>');
    expect(html).toMatch(/<td>mean<\/td>/);
    expect(html).toContain(`npx drivekit view ${path.join(tmp, 'sim')}`);
  });

  it('renders a longtail run: one row per kind with each agent collision rate', async () => {
    const { from, html } = await page(path.join(tmp, 'lt'));
    expect(from).toEqual(['longtail']);
    const json = JSON.parse(fs.readFileSync(path.join(tmp, 'lt', 'cut-in', 'longtail.json'), 'utf8'));
    expect(html).toContain('<th style="text-align:right">idm collision</th>');
    expect(html).toContain(`<td>cut-in</td><td style="text-align:right">1</td>`);
    expect(html).toContain(`<td style="text-align:right">${json.collision_rate.idm}</td>`);
  });

  it('renders a self-training run from results.json: BEV AP per round and set', async () => {
    const dir = path.join(tmp, 'selftrain');
    fs.mkdirSync(dir);
    const entry = (ap: number | null) => ({ ap, gt: 10, predictions: 12, tp: 7 });
    const results = {
      modelPath: path.join(dir, 'detector.onnx'),
      rounds: [],
      rows: [
        {
          method: 'clustering',
          round: 0,
          set: 'train',
          ap: { bev: { '0.3': { '0-30': entry(0.25) } }, '3d': {} },
        },
        {
          method: 'detector',
          round: 1,
          set: 'held-out',
          ap: { bev: { '0.3': { '0-30': entry(0.5) } }, '3d': {} },
        },
      ].map((r) => ({ ...r, best_f1: null, dtc: null, counts: { frames: 4, gt_boxes: 10, pred_boxes: 12 } })),
    } as unknown as ReturnType<typeof summariseResult>;
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results));
    const { from, html } = await page(dir);
    expect(from).toEqual(['selftrain']);
    expect(html).toContain('<th style="text-align:right">BEV@0.3 0-30</th>');
    expect(html).toContain(
      '<td>detector</td><td style="text-align:right">1</td><td style="text-align:right">held-out</td><td style="text-align:right">4</td><td style="text-align:right">0.500</td>',
    );
  });

  it('refuses a folder holding nothing it knows, naming what it looks for', async () => {
    fs.mkdirSync(path.join(tmp, 'nothing'));
    await expectOneLineFailure(
      ['report', path.join(tmp, 'nothing')],
      /nothing to report: no report\.md .*metrics_summary\.csv/,
    );
  });
});
