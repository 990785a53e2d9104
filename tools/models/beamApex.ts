// Where each laser of a spinning LiDAR sits: ground returns of one laser satisfy z = h + r·tanθ (h its height above
// the points' origin, θ its elevation). Beams are told apart by gaps in apparent elevation; z is regressed on r.
// Run: node --import tsx tools/models/beamApex.ts --log <dir> [--frames 8] [--json]
import type { XYZ } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { checkReportFlags, isMain } from '../report/reportFlags.ts';

export interface BeamApexConfig {
  /** Ground returns: horizontal range [minRangeM, maxRangeM] and height [minZM, maxZM] in the points' frame. */
  minRangeM: number;
  maxRangeM: number;
  minZM: number;
  maxZM: number;
  /** A gap of more than this in apparent elevation (degrees) starts a new beam. */
  beamGapDeg: number;
  /** A beam is fitted when it has this many returns and a range spread (standard deviation) of at least this. */
  minReturns: number;
  minRangeSpreadM: number;
}

export const DEFAULT_BEAM_APEX: BeamApexConfig = {
  minRangeM: 3.5,
  maxRangeM: 12,
  minZM: -2.2,
  maxZM: -1.3,
  beamGapDeg: 0.04,
  minReturns: 300,
  minRangeSpreadM: 0.1,
};

export interface BeamFit {
  /** Apparent elevation range of the beam's returns, degrees. */
  elevationDeg: [number, number];
  returns: number;
  elevationFitDeg: number;
  /** Height of the beam's apex above the points' origin, metres (0 for a sensor whose beams share the origin). */
  apexM: number;
}

/**
 * One fit per beam with enough ground returns spread in range. On flat ground seen from a level sensor a beam's
 * returns all lie at one range and the apex is undetermined: tilt, slope and camber give the spread.
 */
export function beamApexFits(sweeps: readonly XYZ[], cfg: BeamApexConfig = DEFAULT_BEAM_APEX): BeamFit[] {
  let n = 0;
  for (const p of sweeps) n += p.x.length;
  const el = new Float64Array(n);
  const rr = new Float64Array(n);
  const zz = new Float64Array(n);
  let m = 0;
  for (const p of sweeps) {
    for (let i = 0; i < p.x.length; i++) {
      const r = Math.hypot(p.x[i], p.y[i]);
      const z = p.z[i];
      if (!(r >= cfg.minRangeM && r <= cfg.maxRangeM && z >= cfg.minZM && z <= cfg.maxZM)) continue;
      el[m] = (Math.atan2(z, r) * 180) / Math.PI;
      rr[m] = r;
      zz[m] = z;
      m++;
    }
  }
  const order = new Int32Array(m);
  for (let i = 0; i < m; i++) order[i] = i;
  order.sort((a, b) => el[a] - el[b]);
  const fits: BeamFit[] = [];
  let start = 0;
  for (let k = 1; k <= m; k++) {
    if (k < m && el[order[k]] - el[order[k - 1]] <= cfg.beamGapDeg) continue;
    const count = k - start;
    if (count >= cfg.minReturns) {
      let sr = 0;
      let sz = 0;
      for (let q = start; q < k; q++) {
        sr += rr[order[q]];
        sz += zz[order[q]];
      }
      const mr = sr / count;
      const mz = sz / count;
      let vrr = 0;
      let vrz = 0;
      for (let q = start; q < k; q++) {
        const dr = rr[order[q]] - mr;
        vrr += dr * dr;
        vrz += dr * (zz[order[q]] - mz);
      }
      if (Math.sqrt(vrr / count) >= cfg.minRangeSpreadM) {
        const slope = vrz / vrr;
        fits.push({
          elevationDeg: [el[order[start]], el[order[k - 1]]],
          returns: count,
          elevationFitDeg: (Math.atan(slope) * 180) / Math.PI,
          apexM: mz - slope * mr,
        });
      }
    }
    start = k;
  }
  return fits;
}

if (isMain(import.meta.url)) {
  const USAGE = `usage: node --import tsx tools/models/beamApex.ts --log <dir> [--frames <n>] [--json]
Each laser's apex height above the points' origin, from the ground returns ${DEFAULT_BEAM_APEX.minRangeM}–${DEFAULT_BEAM_APEX.maxRangeM} m around the car
of --frames sweeps spread over the log (default 8): per beam z = h + r·tanθ, fitted where its returns spread in range.`;
  checkReportFlags(process.argv, USAGE, ['--log', '--frames'], ['--json']);
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const dir = arg('--log');
  const frames = Number(arg('--frames') ?? 8);
  if (!dir || !Number.isInteger(frames) || frames < 1) {
    process.stderr.write(`error: --log is required and --frames must be a whole number ≥ 1\n${USAGE}\n`);
    process.exit(2);
  }
  try {
    const log = await LogReader.open(dir);
    const sweeps: XYZ[] = [];
    try {
      const k = Math.min(frames, log.frameCount);
      for (let f = 0; f < k; f++) sweeps.push((await log.readFrame(Math.floor((f * log.frameCount) / k))).points);
    } finally {
      await log.close();
    }
    const fits = beamApexFits(sweeps);
    if (fits.length === 0) throw new InputError(dir, 'no beam with ground returns spread in range (flat ground, level sensor?)');
    const apex = fits.map((f) => f.apexM).sort((a, b) => a - b);
    const q = (p: number) => apex[Math.floor(p * (apex.length - 1))];
    const summary = { log: dir, beams: fits.length, apexMedianM: q(0.5), apexP10M: q(0.1), apexP90M: q(0.9) };
    if (process.argv.includes('--json')) process.stdout.write(JSON.stringify({ ...summary, fits }) + '\n');
    else
      process.stdout.write(
        `${dir}: ${fits.length} beams fitted; apex height median ${summary.apexMedianM.toFixed(3)} m ` +
          `(p10 ${summary.apexP10M.toFixed(3)}, p90 ${summary.apexP90M.toFixed(3)})\n`,
      );
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
