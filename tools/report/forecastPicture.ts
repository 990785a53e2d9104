// The world model's forecast as a picture: the last observed sweep, the predicted sweep and the true future
// sweep side by side in BEV (all in the start frame, coloured by height), so a person sees what moved.
import { canvasToPng, createCanvas, drawText, fillRect, setPixel, type Canvas } from './canvas.ts';
import { ramp, type CloudXYZ } from './reconstruction.ts';

export interface ForecastPictureOptions {
  /** Half side of each BEV panel (m), centred on the start frame's origin. */
  halfExtentM: number;
  bevPx: number;
  title: string;
  /** Panel captions, left to right. */
  captions: [string, string, string];
}

function bev(c: Canvas, x0: number, y0: number, p: CloudXYZ, o: ForecastPictureOptions): void {
  const s = o.bevPx / (2 * o.halfExtentM);
  fillRect(c, x0, y0, x0 + o.bevPx - 1, y0 + o.bevPx - 1, [20, 20, 24]);
  for (let i = 0; i < p.x.length; i++) {
    // x forward is up, y left is left, as in the tokenizer's pictures.
    const px = x0 + o.bevPx / 2 - p.y[i] * s;
    const py = y0 + o.bevPx / 2 - p.x[i] * s;
    if (px < x0 || py < y0 || px >= x0 + o.bevPx || py >= y0 + o.bevPx) continue;
    setPixel(c, px, py, ramp((p.z[i] + 2.5) / 4.5));
  }
}

/** PNG: past | predicted | true future. */
export function renderForecast(
  past: CloudXYZ,
  predicted: CloudXYZ,
  truth: CloudXYZ,
  o: ForecastPictureOptions,
): Buffer {
  const pad = 16;
  const head = 26;
  const c = createCanvas(3 * o.bevPx + 4 * pad, head + o.bevPx + pad);
  drawText(c, pad, 8, o.title, [20, 20, 20], 2);
  [past, predicted, truth].forEach((p, k) => {
    const x0 = pad + k * (o.bevPx + pad);
    bev(c, x0, head, p, o);
    drawText(c, x0 + 4, head + 4, o.captions[k], [230, 230, 230]);
  });
  return canvasToPng(c);
}
