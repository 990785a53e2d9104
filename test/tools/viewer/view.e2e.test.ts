// End-to-end test of `drivekit view` in headless Chromium: a tiny synthetic log served by the viewer, the
// page's pixels read from screenshots (points and boxes really drawn, toggles work, scrubbing changes it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticLog } from '../../../simulation/town/synthLog.ts';
import { tinyTownConfig } from '../../../simulation/town/townConfig.ts';
import {
  hasChromium,
  launchChromium,
  viewerFrame,
  waitForViewerFrame,
  waitForViewerReady,
} from '../../../tools/viewer/headlessChromium.ts';
import { openViewerSource } from '../../../tools/viewer/openSource.ts';
import { startViewerServer, type ViewerServer } from '../../../tools/viewer/server.ts';
import type { ViewerSource } from '../../../tools/viewer/viewerSource.ts';
import { LogReader } from '../../../datasets/logstore.ts';
import { writeForecastFile } from '../../../worldmodel/forecastFile.ts';
import { decodePng, type Rgba } from './decodePng.ts';

// CI installs chromium (.ci/run), so there a missing browser fails the test instead of skipping it.
const suite = hasChromium() || process.env.CI ? describe : describe.skip;

const BACKGROUND = [0x0d, 0x11, 0x17];
const MAGENTA = [0xff, 0x00, 0xff]; // ground-truth boxes (page/colours.js)
const ORANGE = [0xff, 0x7a, 0x00]; // predicted sweep

let tmp: string;
let source: ViewerSource;
let server: ViewerServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
/** The canvas: below the control bar, above the status line, left of the legend. */
let top = 0;
let bottom = 0;
let left = 0;
let right = 0;

const near = (d: Uint8Array, o: number, c: number[], tol: number) =>
  Math.abs(d[o] - c[0]) <= tol && Math.abs(d[o + 1] - c[1]) <= tol && Math.abs(d[o + 2] - c[2]) <= tol;

/** Pixels of the view area that are not background, and those of the ground-truth box colour. */
function count(img: Rgba): { drawn: number; magenta: number; orange: number; total: number } {
  let drawn = 0;
  let magenta = 0;
  let orange = 0;
  for (let y = top; y < bottom; y++)
    for (let x = left; x < right; x++) {
      const o = 4 * (y * img.width + x);
      if (!near(img.data, o, BACKGROUND, 12)) drawn++;
      if (near(img.data, o, MAGENTA, 40)) magenta++;
      if (near(img.data, o, ORANGE, 40)) orange++;
    }
  return { drawn, magenta, orange, total: (bottom - top) * (right - left) };
}

/** Pixels of the view area that differ between two pictures. */
function differing(a: Rgba, b: Rgba): number {
  let n = 0;
  for (let y = top; y < bottom; y++)
    for (let x = left; x < right; x++) {
      const o = 4 * (y * a.width + x);
      if (!near(a.data, o, [b.data[o], b.data[o + 1], b.data[o + 2]], 12)) n++;
    }
  return n;
}

const shot = async () => decodePng(await page.screenshot());

async function setLayer(layer: string, on: boolean): Promise<void> {
  await page.locator(`input[data-layer="${layer}"]`).setChecked(on);
}

suite('drivekit view in headless Chromium', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-view-'));
    const log = path.join(tmp, 'log');
    await writeSyntheticLog({
      out: log,
      frames: 3,
      seed: 3,
      lidar: 'hdl64',
      // A small town without warm-up keeps the log quick to make (the test is about drawing it).
      town: tinyTownConfig({ warmupS: 0, pedestrians: 2, gridCols: 2 }),
      sensor: { azimuthSteps: 512 },
      workers: 1,
    });
    // A forecast of frame 2 made at frame 0: the true sweep moved 3 m ahead (what a model might predict).
    const reader = await LogReader.open(log);
    const truth = (await reader.readFrame(2)).points;
    await reader.close();
    const forecast = path.join(tmp, 'forecast.arrow');
    await writeForecastFile(forecast, [
      {
        startFrame: 0,
        targetFrame: 2,
        horizonS: 0.2,
        rays: 'truth',
        points: { x: truth.x.map((v) => v + 3), y: truth.y, z: truth.z },
      },
    ]);
    source = await openViewerSource(log, { forecast });
    server = await startViewerServer(source, { port: 0 });
    browser = await launchChromium({ width: 800, height: 600 });
    page = await browser.context.newPage();
    await page.goto(server.url);
    await waitForViewerReady(page);
    const view = (await page.locator('#view').boundingBox())!;
    [top, bottom] = [Math.ceil(view.y), Math.floor(view.y + view.height)];
    [left, right] = [Math.ceil(view.x), Math.floor(view.x + view.width)];
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await source?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('draws the sweep and its ground-truth boxes (pixels), toggles them, and scrubs to another frame', async () => {
    const info = await page.evaluate('window.viewer.info');
    expect(info).toMatchObject({
      kind: 'log',
      frame_count: 3,
      box_sets: ['labels'],
      has_map: true,
      has_forecast: true,
    });
    expect(await viewerFrame(page)).toBe('0');
    const all = count(await shot());

    // Only the points: a good share of the view is drawn, and none of it in the box colour.
    await setLayer('grid', false);
    await setLayer('boxes:labels', false);
    await setLayer('agents:scenario', false);
    await setLayer('map', false);
    const pointsOnly = count(await shot());
    expect(pointsOnly.drawn).toBeGreaterThan(0.02 * pointsOnly.total);
    expect(pointsOnly.magenta).toBe(0);

    // Only the boxes: magenta edges appear, and the points' pixels are gone.
    await setLayer('points', false);
    await setLayer('boxes:labels', true);
    const boxesOnly = count(await shot());
    expect(boxesOnly.magenta).toBeGreaterThan(50);
    expect(boxesOnly.drawn).toBeLessThan(pointsOnly.drawn / 5);
    // Nothing on: an empty view (the background is what `count` takes it to be).
    await setLayer('boxes:labels', false);
    expect(count(await shot()).drawn).toBeLessThan(0.001 * pointsOnly.total);

    for (const l of ['points', 'boxes:labels', 'agents:scenario', 'map', 'grid']) await setLayer(l, true);
    expect(all.orange).toBe(0); // frame 0 has no forecast
    const frame0 = await shot();
    expect(count(frame0).drawn).toBeGreaterThanOrEqual(all.drawn * 0.99);

    // Scrub to the last frame: the page fetches it and the picture changes.
    await page.locator('#scrub').fill('2');
    await waitForViewerFrame(page, 2);
    const png = await page.screenshot();
    const frame2 = decodePng(png);
    expect(differing(frame0, frame2)).toBeGreaterThan(0.01 * all.total);
    expect(count(frame2).magenta).toBeGreaterThan(0);
    const saved = path.join(tmp, 'view-frame-2.png');
    fs.writeFileSync(saved, png);
    expect(fs.statSync(saved).size).toBeGreaterThan(1000);

    // Frame 2 has the forecast: its predicted sweep is drawn in orange, and goes with its toggle.
    expect(count(frame2).orange).toBeGreaterThan(200);
    await setLayer('forecast', false);
    expect(count(await shot()).orange).toBeLessThan(count(frame2).orange / 10);
  }, 30_000);

  it('steps, recolours and moves the camera', async () => {
    await page.locator('#prev').click();
    await waitForViewerFrame(page, 1);
    const byHeight = await shot();
    await page.selectOption('#colour', 'ring');
    const byRing = await shot();
    expect(differing(byHeight, byRing)).toBeGreaterThan(0.01 * count(byHeight).total);
    await page.selectOption('#camera', 'top');
    expect(differing(byRing, await shot())).toBeGreaterThan(0.01 * count(byHeight).total);
  }, 20_000);

  it('serves frames one at a time: binary points, Arrow IPC, per-frame scene; 404 past the end', async () => {
    const get = (p: string) => fetch(new URL(p, server.url));
    const bin = await get('/frames/1');
    expect(bin.status).toBe(200);
    const scene = (await (await get('/frames/1/scene')).json()) as { frame_index: number; boxes: object };
    expect(scene.frame_index).toBe(1);
    expect(Object.keys(scene.boxes)).toEqual(['labels']);
    expect((await get('/frames/1.arrow')).headers.get('content-type')).toMatch(/arrow/);
    expect((await get('/frames/3')).status).toBe(404);
    expect((await get('/three/package.json')).status).toBe(404);
    expect((await get('/three/build/three.module.js')).status).toBe(200);
  });
});
