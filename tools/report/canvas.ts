// A tiny RGB raster canvas for report plots: pixels, lines, filled polygons, dots and a 5×7 bitmap font
// (upper-case, digits, punctuation), written out through the PNG encoder.
import { encodePng } from './png.ts';

export type Rgb = [number, number, number];

export interface Canvas {
  width: number;
  height: number;
  rgb: Uint8Array;
}

export function createCanvas(width: number, height: number, background: Rgb = [255, 255, 255]): Canvas {
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb.set(background, 3 * i);
  return { width, height, rgb };
}

export function canvasToPng(c: Canvas): Buffer {
  return encodePng(c.width, c.height, c.rgb);
}

export function setPixel(c: Canvas, x: number, y: number, color: Rgb, alpha = 1): void {
  const xi = Math.round(x);
  const yi = Math.round(y);
  if (xi < 0 || yi < 0 || xi >= c.width || yi >= c.height) return;
  const o = 3 * (yi * c.width + xi);
  if (alpha >= 1) {
    c.rgb[o] = color[0];
    c.rgb[o + 1] = color[1];
    c.rgb[o + 2] = color[2];
  } else {
    for (let k = 0; k < 3; k++) c.rgb[o + k] = Math.round(c.rgb[o + k] * (1 - alpha) + color[k] * alpha);
  }
}

export function fillRect(c: Canvas, x0: number, y0: number, x1: number, y1: number, color: Rgb): void {
  const xa = Math.max(0, Math.floor(Math.min(x0, x1)));
  const xb = Math.min(c.width - 1, Math.ceil(Math.max(x0, x1)));
  const ya = Math.max(0, Math.floor(Math.min(y0, y1)));
  const yb = Math.min(c.height - 1, Math.ceil(Math.max(y0, y1)));
  for (let y = ya; y <= yb; y++) for (let x = xa; x <= xb; x++) setPixel(c, x, y, color);
}

/** A line of the given width (pixels), drawn as overlapping square stamps along its length. */
export function drawLine(
  c: Canvas,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  color: Rgb,
  width = 1,
): void {
  const len = Math.hypot(x1 - x0, y1 - y0);
  const steps = Math.max(1, Math.ceil(len * 2));
  const r = (width - 1) / 2;
  for (let i = 0; i <= steps; i++) {
    const x = x0 + ((x1 - x0) * i) / steps;
    const y = y0 + ((y1 - y0) * i) / steps;
    if (r <= 0) setPixel(c, x, y, color);
    else fillRect(c, x - r, y - r, x + r, y + r, color);
  }
}

export function drawPolyline(c: Canvas, xy: ArrayLike<number>, color: Rgb, width = 1, closed = false): void {
  const n = xy.length >> 1;
  for (let i = 0; i + 1 < n; i++)
    drawLine(c, xy[2 * i], xy[2 * i + 1], xy[2 * i + 2], xy[2 * i + 3], color, width);
  if (closed && n > 2) drawLine(c, xy[2 * n - 2], xy[2 * n - 1], xy[0], xy[1], color, width);
}

/** Fill a polygon (even-odd rule) given in pixel coordinates [x0, y0, x1, y1, …]. */
export function fillPolygon(c: Canvas, xy: ArrayLike<number>, color: Rgb, alpha = 1): void {
  const n = xy.length >> 1;
  if (n < 3) return;
  let yMin = Infinity;
  let yMax = -Infinity;
  for (let i = 0; i < n; i++) {
    yMin = Math.min(yMin, xy[2 * i + 1]);
    yMax = Math.max(yMax, xy[2 * i + 1]);
  }
  const xs: number[] = [];
  for (let y = Math.max(0, Math.floor(yMin)); y <= Math.min(c.height - 1, Math.ceil(yMax)); y++) {
    const yc = y + 0.5;
    xs.length = 0;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      const ya = xy[2 * i + 1];
      const yb = xy[2 * j + 1];
      if ((ya <= yc && yb > yc) || (yb <= yc && ya > yc)) {
        xs.push(xy[2 * i] + ((yc - ya) / (yb - ya)) * (xy[2 * j] - xy[2 * i]));
      }
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      for (
        let x = Math.max(0, Math.ceil(xs[k] - 0.5));
        x <= Math.min(c.width - 1, Math.floor(xs[k + 1] - 0.5));
        x++
      ) {
        setPixel(c, x, y, color, alpha);
      }
    }
  }
}

export function drawDot(c: Canvas, x: number, y: number, radius: number, color: Rgb, alpha = 1): void {
  for (let dy = -Math.ceil(radius); dy <= Math.ceil(radius); dy++) {
    for (let dx = -Math.ceil(radius); dx <= Math.ceil(radius); dx++) {
      if (dx * dx + dy * dy <= radius * radius) setPixel(c, x + dx, y + dy, color, alpha);
    }
  }
}

// 5×7 glyphs, one string of 7 rows × 5 columns per character ('#' = ink).
const GLYPHS: Record<string, string> = {
  '0': '.###.#...##..###.#.###..##...#.###.',
  '1': '..#...##....#....#....#....#...###.',
  '2': '.###.#...#....#...#...#...#...#####',
  '3': '#####...#...#.....#.....##...#.###.',
  '4': '...#...##..#.#.#..#.#####...#....#.',
  '5': '######....####.....#....##...#.###.',
  '6': '..##..#...#....####.#...##...#.###.',
  '7': '#####....#...#...#...#....#....#...',
  '8': '.###.#...##...#.###.#...##...#.###.',
  '9': '.###.#...##...#.####....#...#..##..',
  A: '.###.#...##...#######...##...##...#',
  B: '####.#...##...#####.#...##...#####.',
  C: '.###.#...##....#....#....#...#.###.',
  D: '###..#..#.#...##...##...##..#.###..',
  E: '######....#....####.#....#....#####',
  F: '######....#....####.#....#....#....',
  G: '.###.#...##....#.####...##...#.####',
  H: '#...##...##...#######...##...##...#',
  I: '.###...#....#....#....#....#...###.',
  J: '..###...#....#....#....##..#..##...',
  K: '#...##..#.#.#..##...#.#..#..#.#...#',
  L: '#....#....#....#....#....#....#####',
  M: '#...###.###.#.##...##...##...##...#',
  N: '#...##...###..##.#.##..###...##...#',
  O: '.###.#...##...##...##...##...#.###.',
  P: '####.#...##...#####.#....#....#....',
  Q: '.###.#...##...##...##.#.##..#..##.#',
  R: '####.#...##...#####.#.#..#..#.#...#',
  S: '.####.....#.....###.....#....#####.',
  T: '#####..#....#....#....#....#....#..',
  U: '#...##...##...##...##...##...#.###.',
  V: '#...##...##...##...##...#.#.#...#..',
  W: '#...##...##...##.#.##.#.##.#.#.#.#.',
  X: '#...##...#.#.#...#...#.#.#...##...#',
  Y: '#...##...#.#.#...#....#....#....#..',
  Z: '#####....#...#...#...#...#....#####',
  ' ': '...................................',
  '.': '..........................##...##..',
  ',': '.....................##....#...#...',
  ':': '......##...##........##...##.......',
  '-': '...............#####...............',
  '+': '.......#....#..#####..#....#.......',
  '/': '....#....#...#...#...#...#....#....',
  '(': '...#...#...#....#....#.....#.....#.',
  ')': '.#.....#.....#....#....#...#...#...',
  '%': '##...##..#...#...#...#...#..##...##',
  '=': '..........#####.....#####..........',
  '<': '...#...#...#...#.....#.....#.....#.',
  '>': '.#.....#.....#.....#...#...#...#...',
  _: '..............................#####',
  '[': '.###..#....#....#....#....#....###.',
  ']': '.###....#....#....#....#....#..###.',
  '*': '.......#..#.#.#.###.#.#.#..#.......',
  '#': '.#.#..#.#.#####.#.#.#####.#.#..#.#.',
  '²': '.##..#..#...#...#...####...........',
  '×': '.....#...#.#.#...#...#.#.#...#.....',
  '°': '.##..#..#..##......................',
  '~': '...........#...#.#.#...#...........',
  '?': '.###.#...#....#...#...#.........#..',
  '|': '..#....#....#....#....#....#....#..',
};

/** Draw text with its top-left corner at (x, y); `scale` multiplies the 5×7 glyph size. */
export function drawText(c: Canvas, x: number, y: number, text: string, color: Rgb, scale = 1): void {
  let cx = x;
  for (const ch of text) {
    const g = GLYPHS[ch] ?? GLYPHS[ch.toUpperCase()] ?? GLYPHS['?'];
    if (g) {
      for (let r = 0; r < 7; r++) {
        for (let k = 0; k < 5; k++) {
          if (g[r * 5 + k] === '#')
            fillRect(
              c,
              cx + k * scale,
              y + r * scale,
              cx + k * scale + scale - 1,
              y + r * scale + scale - 1,
              color,
            );
        }
      }
    }
    cx += 6 * scale;
  }
}

export function textWidth(text: string, scale = 1): number {
  return text.length * 6 * scale;
}
