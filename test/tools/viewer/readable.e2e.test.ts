// The viewer as a reader sees it, in headless Chromium, checked on screenshot pixels: a legend whose swatches
// carry the drawn colours, a ground grid, ground truth visible where agents coincide with it, an ego marker
// on a log without a scenario, a status line and legend beside (not over) the picture, and on a sim folder a
// scenario/rollout picker with colliding and off-road agents highlighted. DRIVEKIT_WRITE_DOCS=1 also saves
// the log and rollout screenshots shown in docs/viewer.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { REPO_ROOT, realData } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { writeSyntheticLog } from '../../../simulation/town/synthLog.ts';
import { tinyTownConfig } from '../../../simulation/town/townConfig.ts';
import {
  hasChromium,
  launchChromium,
  waitForViewerFrame,
  waitForViewerReady,
} from '../../../tools/viewer/headlessChromium.ts';
import { openViewerSource } from '../../../tools/viewer/openSource.ts';
import { startViewerServer, type ViewerServer } from '../../../tools/viewer/server.ts';
import type { ViewerSource } from '../../../tools/viewer/viewerSource.ts';
import { drivekit } from '../commands/castLog.ts';
import { decodePng, type Rgba } from './decodePng.ts';

const suite = hasChromium() || process.env.CI ? describe : describe.skip;
const WRITE_DOCS = process.env.DRIVEKIT_WRITE_DOCS === '1';

// The page's colours (tools/viewer/page/colours.js).
const MAGENTA = 0xff00ff;
const GRID = 0x3a4250;
const EGO = 0xffffff;
const COLLISION = 0xff2020;
const OFFROAD = 0xff70c0;
const VEHICLE = 0x4da6ff;

const rgbOf = (c: number) => [(c >> 16) & 255, (c >> 8) & 255, c & 255];
const near = (d: Uint8Array, o: number, c: number[], tol: number) =>
  Math.abs(d[o] - c[0]) <= tol && Math.abs(d[o + 1] - c[1]) <= tol && Math.abs(d[o + 2] - c[2]) <= tol;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pixels of colour `c` (±tol) inside `r`. */
function countIn(img: Rgba, r: Rect, c: number, tol = 30): number {
  const rgb = rgbOf(c);
  let n = 0;
  for (let y = Math.ceil(r.y); y < Math.floor(r.y + r.height); y++)
    for (let x = Math.ceil(r.x); x < Math.floor(r.x + r.width); x++)
      if (near(img.data, 4 * (y * img.width + x), rgb, tol)) n++;
  return n;
}

let tmp: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const opened: { source: ViewerSource; server: ViewerServer }[] = [];

async function serve(target: string): Promise<string> {
  const source = await openViewerSource(target);
  const server = await startViewerServer(source, { port: 0 });
  opened.push({ source, server });
  return server.url;
}

async function openPage(url: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(url);
  await waitForViewerReady(page);
  return page;
}

const shot = async (page: Page) => decodePng(await page.screenshot());
const rect = async (page: Page, sel: string) => (await page.locator(sel).boundingBox())!;
const setLayer = (page: Page, layer: string, on: boolean) =>
  page.locator(`input[data-layer="${layer}"]`).setChecked(on);

/** The legend swatch of `key` holds colour `c` on the screen. */
async function expectSwatch(page: Page, img: Rgba, key: string, c: number): Promise<void> {
  const box = await rect(page, `#legend [data-key="${key}"] .swatch`);
  expect(countIn(img, box, c, 4), key).toBeGreaterThan(0.8 * Math.floor(box.width) * Math.floor(box.height));
}

suite('drivekit view: a picture a reader can read', () => {
  let synthUrl: string;
  let ringUrl: string;
  let simUrl: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-view-readable-'));
    // A synthetic log: sweep, ground truth, the scenario's agents (coinciding with it) and the map.
    const synth = path.join(tmp, 'synth');
    await writeSyntheticLog({
      out: synth,
      frames: 2,
      seed: 5,
      lidar: 'hdl64',
      town: tinyTownConfig({ warmupS: 0, pedestrians: 2, gridCols: 2 }),
      sensor: { azimuthSteps: 512 },
      workers: 1,
    });
    // A log as an import makes it: rings of points around a sensor 1.7 m up, no scenario, no boxes.
    const ring = path.join(tmp, 'ring');
    const w = LogWriter.create(ring, { source: 'pcd' });
    for (let k = 0; k < 2; k++) {
      const n = 20_000;
      const p = allocatePointCloud(n);
      for (let i = 0; i < n; i++) {
        const r = 6 + (i % 40) * 1.2;
        const az = (i / n) * 2 * Math.PI * 7;
        p.x[i] = r * Math.cos(az);
        p.y[i] = r * Math.sin(az);
        p.z[i] = -1.7;
        p.intensity[i] = (i % 100) / 100;
      }
      w.appendFrame({
        timestampNs: BigInt(k) * 100_000_000n,
        pose: poseFromTranslationYaw(k, 0, 1.7, 0),
        points: p,
      });
    }
    await w.close();
    // A sim folder: CV agents on two cut-in scenarios (the cut-in makes them collide), two rollouts each.
    await drivekit('longtail', '--kind', 'cut-in', '--count', '2', '--out', path.join(tmp, 'lt'));
    await drivekit(
      'sim',
      '--scenarios',
      path.join(tmp, 'lt', 'cut-in'),
      '--agents',
      'cv',
      '--rollouts',
      '2',
      '--out',
      path.join(tmp, 'sim'),
    );
    synthUrl = await serve(synth);
    ringUrl = await serve(ring);
    simUrl = await serve(path.join(tmp, 'sim'));
    browser = await launchChromium({ width: 1000, height: 640 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    for (const { source, server } of opened) {
      await server.close();
      await source.close();
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lays out bar, picture, legend and status line side by side, none over another', async () => {
    const page = await openPage(synthUrl);
    const [bar, view, legend, status] = await Promise.all(
      ['#bar', '#view', '#legend', '#status'].map((s) => rect(page, s)),
    );
    expect(view.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    expect(status.y).toBeGreaterThanOrEqual(view.y + view.height - 1);
    expect(legend.x).toBeGreaterThanOrEqual(view.x + view.width - 1);
    expect(view.width * view.height).toBeGreaterThan(0.6 * 1000 * 640);
    expect(await page.locator('#status').textContent()).toMatch(/points, ground truth \d+/);
    await page.close();
  });

  it('has a legend swatch for every colour drawn, in the colour drawn; a grid; ground truth over agents', async () => {
    const page = await openPage(synthUrl);
    const view = await rect(page, '#view');
    const all = await shot(page);
    for (const [key, c] of [
      ['boxes:labels', MAGENTA],
      ['grid', GRID],
      ['agent:vehicle', VEHICLE],
      ['agent:ego', EGO],
      ['map:lanes', 0x2f4f6f],
      ['map:road_edges', 0xa0a8b0],
    ] as const)
      await expectSwatch(page, all, key, c);
    expect(await page.locator('#legend [data-key="ramp:height"]').count()).toBe(1);
    expect(await page.locator('#legend').textContent()).toContain('grid: 10 m cells');

    // Ground truth where the scenario's agents coincide with it: most of its pixels still show.
    await setLayer(page, 'agents:scenario', false);
    await setLayer(page, 'points', false);
    const gtAlone = countIn(await shot(page), view, MAGENTA);
    await setLayer(page, 'agents:scenario', true);
    const withAgents = await shot(page);
    expect(gtAlone).toBeGreaterThan(100);
    expect(countIn(withAgents, view, MAGENTA)).toBeGreaterThan(0.7 * gtAlone);
    expect(countIn(withAgents, view, VEHICLE)).toBeGreaterThan(50);

    // The grid is drawn, and goes with its toggle.
    for (const l of ['agents:scenario', 'boxes:labels', 'map']) await setLayer(page, l, false);
    const gridOnly = countIn(await shot(page), view, GRID, 12);
    expect(gridOnly).toBeGreaterThan(500);
    await setLayer(page, 'grid', false);
    expect(countIn(await shot(page), view, GRID, 12)).toBeLessThan(gridOnly / 20);
    for (const l of ['agents:scenario', 'boxes:labels', 'map', 'points', 'grid'])
      await setLayer(page, l, true);
    await page.selectOption('#colour', 'ring');
    expect(await page.locator('#legend [data-key="ramp:ring"] .swatch').count()).toBe(8);
    if (WRITE_DOCS) {
      await page.selectOption('#colour', 'height');
      fs.writeFileSync(path.join(REPO_ROOT, 'docs', 'viewer-log.png'), await page.screenshot());
    }
    await page.close();
  }, 60_000);

  it('marks the ego on a log without a scenario', async () => {
    const page = await openPage(ringUrl);
    const view = await rect(page, '#view');
    const img = await shot(page);
    await expectSwatch(page, img, 'ego', EGO);
    // The grid runs both ways: rows crossed by lines along the heading hold a few grid pixels, where
    // lines across it fill whole rows.
    const gridRgb = rgbOf(GRID);
    let crossed = 0;
    for (let y = Math.ceil(view.y + view.height / 2); y < Math.floor(view.y + view.height); y++) {
      let n = 0;
      for (let x = Math.ceil(view.x); x < Math.floor(view.x + view.width); x++)
        if (near(img.data, 4 * (y * img.width + x), gridRgb, 12)) n++;
      if (n > 0 && n < view.width / 4) crossed++;
    }
    expect(crossed).toBeGreaterThan(view.height / 4);
    const withEgo = countIn(img, view, EGO, 10);
    expect(withEgo).toBeGreaterThan(100);
    await setLayer(page, 'ego', false);
    expect(countIn(await shot(page), view, EGO, 10)).toBeLessThan(withEgo / 20);
    await page.close();
  });

  it('picks scenarios and rollouts of a sim folder and highlights collisions and off-road agents', async () => {
    const page = await openPage(simUrl);
    const view = await rect(page, '#view');
    const ids = await page
      .locator('#scenarioPick option')
      .evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    expect(ids).toHaveLength(2);
    expect(await page.locator('#rolloutPick option').count()).toBe(2);
    // The frames where the scene flags a collision or an off-road vehicle (from the server, as the page gets them).
    const flagged = async (bit: number, scenario: string) => {
      const frames: number[] = [];
      for (let i = 0; i < 91; i += 3) {
        const s = (await (
          await fetch(new URL(`/frames/${i}/scene?scenario=${scenario}`, simUrl))
        ).json()) as {
          flags: { rollout: number[] };
        };
        if (s.flags.rollout.some((f) => (bit === 1 ? f & 1 : (f & 3) === 2))) frames.push(i);
      }
      return frames;
    };
    let checked = 0;
    for (const id of ids) {
      await page.selectOption('#scenarioPick', id!);
      await page.waitForFunction(`window.viewer.info.rollout_choice.scenario === ${JSON.stringify(id)}`);
      expect(new URL(page.url()).searchParams.get('scenario')).toBe(id);
      for (const [bit, colour, key] of [
        [1, COLLISION, 'flag:collision'],
        [2, OFFROAD, 'flag:offroad'],
      ] as const) {
        const frames = await flagged(bit, id!);
        if (frames.length === 0) continue;
        await page.evaluate(`window.viewer.show(${frames[0]})`);
        await waitForViewerFrame(page, frames[0]);
        const img = await shot(page);
        expect(countIn(img, view, colour, 20), `${id} frame ${frames[0]}`).toBeGreaterThan(30);
        await expectSwatch(page, img, key, colour);
        expect(await page.locator(`#legend [data-key="${key}"]`).textContent()).toMatch(/\(([1-9]\d*) now\)/);
        checked |= bit;
      }
    }
    // These cut-ins with constant-velocity agents do collide, and one also leaves the road.
    expect(checked).toBe(3);
    // A frame with nothing flagged has no highlight colour.
    const calm = 0;
    expect(await flagged(1, ids[0]!)).not.toContain(calm);
    await page.selectOption('#scenarioPick', ids[0]!);
    await page.waitForFunction(`window.viewer.info.rollout_choice.scenario === ${JSON.stringify(ids[0])}`);
    await page.evaluate(`window.viewer.show(${calm})`);
    await waitForViewerFrame(page, calm);
    expect(countIn(await shot(page), view, COLLISION, 20)).toBe(0);
    // The second rollout is another request's data: the page shows it.
    await page.selectOption('#rolloutPick', '1');
    await page.waitForFunction('window.viewer.info.rollout_choice.rollout === 1');
    // The status line names what is drawn once the frame of the new rollout is.
    await page.waitForFunction("document.getElementById('status').textContent.includes('rollout 1:')");
    expect(new URL(page.url()).searchParams.get('rollout')).toBe('1');
    await page.close();
  }, 60_000);

  it.runIf(WRITE_DOCS && fs.existsSync(realData('womd')))(
    'saves the docs picture of a rollout: CV agents on the WOMD scenario, top-down',
    async () => {
      const out = path.join(tmp, 'womd-sim');
      await drivekit(
        'sim',
        '--scenarios',
        realData('womd', 'motion_data_one_scenario.tfrecord'),
        '--agents',
        'cv',
        '--rollouts',
        '2',
        '--out',
        out,
      );
      const page = await openPage(`${await serve(out)}?frame=60`);
      await page.selectOption('#camera', 'top');
      const img = await page.screenshot();
      expect(countIn(decodePng(img), await rect(page, '#view'), COLLISION, 20)).toBeGreaterThan(30);
      fs.writeFileSync(path.join(REPO_ROOT, 'docs', 'viewer-rollout.png'), img);
      await page.close();
    },
    60_000,
  );
});
