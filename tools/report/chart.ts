// Simple charts on the report canvas: a plot panel with linear or log axes, ticks and labels, line and
// scatter series, and a legend — enough for metric curves and histograms written as PNG by code.
import { type Canvas, type Rgb, drawDot, drawLine, drawText, fillRect, textWidth } from './canvas.ts';

export interface Axis {
  min: number;
  max: number;
  log?: boolean;
  label: string;
  /** Tick positions (data units); default: 5 even steps (or the decades of a log axis). */
  ticks?: number[];
}

export interface Panel {
  /** Plot area in pixels (inside the axes). */
  left: number;
  top: number;
  width: number;
  height: number;
  x: Axis;
  y: Axis;
}

const INK: Rgb = [40, 40, 40];
const GRID: Rgb = [225, 225, 225];

function norm(a: Axis, v: number): number {
  if (a.log) {
    const lo = Math.log10(a.min);
    const hi = Math.log10(a.max);
    return (Math.log10(Math.max(v, a.min)) - lo) / (hi - lo);
  }
  return (v - a.min) / (a.max - a.min);
}

export function toPx(p: Panel, x: number, y: number): [number, number] {
  return [p.left + norm(p.x, x) * p.width, p.top + (1 - norm(p.y, y)) * p.height];
}

function defaultTicks(a: Axis): number[] {
  if (a.ticks) return a.ticks;
  if (a.log) {
    const out: number[] = [];
    for (let e = Math.ceil(Math.log10(a.min)); e <= Math.floor(Math.log10(a.max)); e++) out.push(10 ** e);
    return out;
  }
  return Array.from({ length: 6 }, (_, i) => a.min + ((a.max - a.min) * i) / 5);
}

function fmt(v: number): string {
  if (Math.abs(v) >= 1000) return `${Math.round(v / 1000)}k`;
  if (Math.abs(v) >= 10 || Number.isInteger(v)) return String(Math.round(v));
  return v.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
}

/** Frame, grid, ticks, axis labels and title of a panel. */
export function drawPanel(c: Canvas, p: Panel, title: string): void {
  for (const t of defaultTicks(p.x)) {
    const [x] = toPx(p, t, p.y.min);
    drawLine(c, x, p.top, x, p.top + p.height, GRID);
    const s = fmt(t);
    drawText(c, x - textWidth(s) / 2, p.top + p.height + 6, s, INK);
  }
  for (const t of defaultTicks(p.y)) {
    const [, y] = toPx(p, p.x.min, t);
    drawLine(c, p.left, y, p.left + p.width, y, GRID);
    const s = fmt(t);
    drawText(c, p.left - textWidth(s) - 6, y - 3, s, INK);
  }
  drawLine(c, p.left, p.top, p.left, p.top + p.height, INK);
  drawLine(c, p.left, p.top + p.height, p.left + p.width, p.top + p.height, INK);
  drawLine(c, p.left, p.top, p.left + p.width, p.top, INK);
  drawLine(c, p.left + p.width, p.top, p.left + p.width, p.top + p.height, INK);
  drawText(c, p.left + p.width / 2 - textWidth(p.x.label) / 2, p.top + p.height + 20, p.x.label, INK);
  drawText(c, p.left, p.top - 24, title, INK, 2);
  drawText(c, p.left - 4, p.top - 10, p.y.label, INK);
}

export function plotLine(
  c: Canvas,
  p: Panel,
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  color: Rgb,
  width = 2,
): void {
  for (let i = 0; i + 1 < xs.length; i++) {
    const [x0, y0] = toPx(p, xs[i], ys[i]);
    const [x1, y1] = toPx(p, xs[i + 1], ys[i + 1]);
    drawLine(c, x0, y0, x1, y1, color, width);
  }
}

export function plotPoints(
  c: Canvas,
  p: Panel,
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  color: Rgb,
  marker: 'dot' | 'cross' = 'dot',
  size = 2,
): void {
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] < p.x.min || xs[i] > p.x.max || ys[i] < p.y.min || ys[i] > p.y.max) continue;
    const [x, y] = toPx(p, xs[i], ys[i]);
    if (marker === 'dot') drawDot(c, x, y, size, color, 0.7);
    else {
      drawLine(c, x - size, y - size, x + size, y + size, color, 2);
      drawLine(c, x - size, y + size, x + size, y - size, color, 2);
    }
  }
}

/** A legend box: one coloured swatch and label per entry, top-left at (x, y). */
export function drawLegend(c: Canvas, x: number, y: number, entries: readonly [string, Rgb][]): void {
  entries.forEach(([label, color], i) => {
    fillRect(c, x, y + i * 14, x + 10, y + i * 14 + 8, color);
    drawText(c, x + 16, y + i * 14, label, INK);
  });
}
