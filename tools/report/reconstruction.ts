// The tokenizer's reconstruction as a picture: input and decoded sweep side by side in BEV (coloured by
// height) and as range images (azimuth × elevation, coloured by range), so a person can see what survives.
import { type Canvas, canvasToPng, createCanvas, drawText, fillRect, type Rgb, setPixel } from './canvas.ts';

export interface CloudXYZ {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

export interface ReconstructionPictureOptions {
  /** Half side of the BEV panels (m). */
  halfExtentM: number;
  /** Side of each BEV panel (px). */
  bevPx: number;
  /** Elevation range of the range images (deg), e.g. HDL-64E's −25…+3. */
  elevationDeg: [number, number];
  /** The sensor's position in the clouds' frame (rays start there). */
  origin: readonly [number, number, number];
  title: string;
}

/** A blue → green → yellow → red ramp for t in [0, 1]. */
export function ramp(t: number): Rgb {
  const u = Math.max(0, Math.min(1, t));
  const stops: Rgb[] = [
    [48, 18, 160],
    [30, 150, 220],
    [60, 200, 90],
    [240, 210, 40],
    [210, 40, 30],
  ];
  const f = u * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const a = f - i;
  return [0, 1, 2].map((k) => Math.round(stops[i][k] * (1 - a) + stops[i + 1][k] * a)) as Rgb;
}

function drawBev(c: Canvas, x0: number, y0: number, p: CloudXYZ, o: ReconstructionPictureOptions): void {
  const s = o.bevPx / (2 * o.halfExtentM);
  fillRect(c, x0, y0, x0 + o.bevPx - 1, y0 + o.bevPx - 1, [20, 20, 24]);
  for (let i = 0; i < p.x.length; i++) {
    // x forward is up, y left is left: the view from above with the car heading up the page.
    const px = x0 + o.bevPx / 2 - p.y[i] * s;
    const py = y0 + o.bevPx / 2 - p.x[i] * s;
    if (px < x0 || py < y0 || px >= x0 + o.bevPx || py >= y0 + o.bevPx) continue;
    setPixel(c, px, py, ramp((p.z[i] - o.origin[2] + 2.5) / 4.5));
  }
}

function drawRange(
  c: Canvas,
  x0: number,
  y0: number,
  w: number,
  h: number,
  p: CloudXYZ,
  o: ReconstructionPictureOptions,
  maxRangeM: number,
): void {
  fillRect(c, x0, y0, x0 + w - 1, y0 + h - 1, [20, 20, 24]);
  const [eLo, eHi] = o.elevationDeg.map((d) => (d * Math.PI) / 180);
  for (let i = 0; i < p.x.length; i++) {
    const dx = p.x[i] - o.origin[0];
    const dy = p.y[i] - o.origin[1];
    const dz = p.z[i] - o.origin[2];
    const r = Math.hypot(dx, dy);
    const az = Math.atan2(dy, dx);
    const el = Math.atan2(dz, r);
    if (el < eLo || el > eHi) continue;
    const px = x0 + ((Math.PI - az) / (2 * Math.PI)) * (w - 1);
    const py = y0 + ((eHi - el) / (eHi - eLo)) * (h - 1);
    setPixel(c, px, py, ramp(Math.hypot(r, dz) / maxRangeM));
  }
}

/** PNG: BEV of input | BEV of reconstruction on top, their range images below. */
export function renderReconstruction(
  input: CloudXYZ,
  decoded: CloudXYZ,
  o: ReconstructionPictureOptions,
): Buffer {
  const pad = 16;
  const head = 26;
  const rangeW = 2 * o.bevPx + pad;
  const rangeH = 96;
  const W = 2 * o.bevPx + 3 * pad;
  const H = head + o.bevPx + 2 * (rangeH + pad + 14) + pad;
  const c = createCanvas(W, H);
  drawText(c, pad, 8, o.title, [20, 20, 20], 2);
  const top = head;
  drawBev(c, pad, top, input, o);
  drawBev(c, 2 * pad + o.bevPx, top, decoded, o);
  drawText(c, pad + 4, top + 4, 'INPUT (BEV, COLOUR = HEIGHT)', [230, 230, 230]);
  drawText(c, 2 * pad + o.bevPx + 4, top + 4, 'RECONSTRUCTION', [230, 230, 230]);
  const maxRange = o.halfExtentM * Math.SQRT2;
  let y = top + o.bevPx + pad;
  drawText(c, pad, y, 'INPUT RANGE IMAGE (COLOUR = RANGE)', [20, 20, 20]);
  drawRange(c, pad, y + 12, rangeW, rangeH, input, o, maxRange);
  y += rangeH + pad + 14;
  drawText(c, pad, y, 'RECONSTRUCTED RANGE IMAGE', [20, 20, 20]);
  drawRange(c, pad, y + 12, rangeW, rangeH, decoded, o, maxRange);
  return canvasToPng(c);
}
