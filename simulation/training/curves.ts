// Training curves as a small standalone SVG (one panel per series, shared x axis): what a person looks
// at to see whether returns rise, infractions fall and λ settles.

export interface CurveSeries {
  name: string;
  /** [x, y] points. */
  points: readonly (readonly [number, number])[];
}

const esc = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

/** An SVG with one line panel per series, stacked; `xLabel` names the shared x axis. */
export function curvesSvg(title: string, xLabel: string, series: readonly CurveSeries[]): string {
  const W = 640;
  const H = 150;
  const pad = { l: 60, r: 20, t: 24, b: 24 };
  const parts: string[] = [];
  series.forEach((s, i) => {
    const y0 = 30 + i * H;
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const [xmin, xmax] = [Math.min(...xs, 0), Math.max(...xs, 1)];
    let [ymin, ymax] = [Math.min(...ys), Math.max(...ys)];
    if (!pts.length) [ymin, ymax] = [0, 1];
    if (ymax - ymin < 1e-9) [ymin, ymax] = [ymin - 0.5, ymax + 0.5];
    const px = (x: number) => pad.l + ((x - xmin) / (xmax - xmin || 1)) * (W - pad.l - pad.r);
    const py = (y: number) => y0 + pad.t + (1 - (y - ymin) / (ymax - ymin)) * (H - pad.t - pad.b);
    parts.push(
      `<rect x="${pad.l}" y="${y0 + pad.t}" width="${W - pad.l - pad.r}" height="${H - pad.t - pad.b}" fill="none" stroke="#999"/>`,
      `<text x="${pad.l}" y="${y0 + pad.t - 6}" font-size="12">${esc(s.name)}</text>`,
      `<text x="${pad.l - 4}" y="${py(ymax) + 4}" font-size="10" text-anchor="end">${ymax.toPrecision(3)}</text>`,
      `<text x="${pad.l - 4}" y="${py(ymin)}" font-size="10" text-anchor="end">${ymin.toPrecision(3)}</text>`,
      `<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`,
    );
  });
  const h = 30 + series.length * H + 20;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" font-family="sans-serif">` +
    `<text x="10" y="18" font-size="14">${esc(title)}</text>${parts.join('')}` +
    `<text x="${W / 2}" y="${h - 6}" font-size="11" text-anchor="middle">${esc(xLabel)}</text></svg>\n`
  );
}
