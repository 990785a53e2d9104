// The summary of a log printed by `drivekit info` and the demo report: counts, point statistics,
// duration, extents and labels, as a JSON-ready object and as aligned text.
import type { LogReader, Extent } from '../../datasets/logstore.ts';
import { medianOfSorted } from '../../core/stats.ts';

export interface LogSummary {
  log: string;
  logId: string;
  source: string;
  sensor: string | null;
  /**
   * 'sweeps': a spinning sensor's sequence in time (rate and duration mean something); 'survey': point
   * clouds of an aerial or terrestrial survey (LAS/LAZ), one per file, with no sweep rate or duration.
   */
  kind: 'sweeps' | 'survey';
  frames: number;
  points: { total: number; min: number; median: number; max: number };
  droppedNonFinite: number;
  /** Points at exactly (0,0,0) a reader dropped as padding (PCD/PLY), when it counted them. */
  droppedOriginPoints?: number;
  /** Implausible points (non-finite, out of any sensor's range, outside a LAS header) dropped on import with --drop-implausible. */
  droppedImplausible?: number;
  durationS: number;
  rateHz: number;
  extent: { points: Extent | null; trajectory: Extent | null };
  labels: { boxes: number; tracks: number; classes: Record<string, number> } | null;
}

/** Sources whose files are survey point clouds (LAS/LAZ), not sweeps at a rate. */
const SURVEY_SOURCES = new Set(['las']);

export function logSummary(log: LogReader): LogSummary {
  const counts = [...log.meta.pointsPerFrame].sort((a, b) => a - b);
  const n = counts.length;
  const ts = log.timestampsNs;
  const durationS = n > 1 ? Number(ts[n - 1] - ts[0]) / 1e9 : 0;
  const labels = log.readBoxes('labels');
  let labelSummary: LogSummary['labels'] = null;
  if (labels) {
    const classes: Record<string, number> = {};
    for (const l of labels.label) classes[l] = (classes[l] ?? 0) + 1;
    const tracks = new Set<number>();
    for (const t of labels.trackId) if (t >= 0) tracks.add(t);
    labelSummary = { boxes: labels.cx.length, tracks: tracks.size, classes };
  }
  return {
    log: log.dir,
    logId: log.meta.logId,
    source: log.meta.source,
    sensor: log.meta.sensor,
    kind: SURVEY_SOURCES.has(log.meta.source) ? 'survey' : 'sweeps',
    frames: n,
    points: {
      total: counts.reduce((s, c) => s + c, 0),
      min: n ? counts[0] : 0,
      median: n ? medianOfSorted(counts) : 0,
      max: n ? counts[n - 1] : 0,
    },
    droppedNonFinite: log.meta.droppedNonFinite,
    ...(typeof log.meta.extra.droppedOriginPoints === 'number'
      ? { droppedOriginPoints: log.meta.extra.droppedOriginPoints }
      : {}),
    ...(typeof log.meta.extra.droppedImplausiblePoints === 'number'
      ? { droppedImplausible: log.meta.extra.droppedImplausiblePoints }
      : {}),
    durationS,
    rateHz: log.meta.rateHz,
    extent: { points: log.meta.pointExtent, trajectory: log.meta.trajectoryExtent },
    labels: labelSummary,
  };
}

const fmtExtent = (e: Extent | null) =>
  e
    ? `x [${e.min[0].toFixed(1)}, ${e.max[0].toFixed(1)}]  y [${e.min[1].toFixed(1)}, ${e.max[1].toFixed(1)}]  z [${e.min[2].toFixed(1)}, ${e.max[2].toFixed(1)}] m`
    : '—';

export function formatLogSummary(s: LogSummary): string {
  const rows: [string, string][] = [
    ['log', `${s.log} (${s.logId})`],
    ['source', `${s.source}${s.sensor ? ', ' + s.sensor : ''}`],
    [
      'frames',
      s.kind === 'survey'
        ? `${s.frames} survey point cloud${s.frames === 1 ? '' : 's'} (aerial or terrestrial LAS/LAZ, one per file: no sweep rate or duration)`
        : `${s.frames} at ${s.rateHz} Hz, ${s.durationS.toFixed(2)} s`,
    ],
    [
      'points',
      `${s.points.total.toLocaleString('en-US')} total; per frame min ${s.points.min}, median ${s.points.median}, max ${s.points.max}`,
    ],
    ['dropped NaN/Inf', String(s.droppedNonFinite)],
    ...(s.droppedOriginPoints !== undefined
      ? [['dropped (0,0,0)', `${s.droppedOriginPoints} padding points`] as [string, string]]
      : []),
    ...(s.droppedImplausible !== undefined
      ? [['dropped implausible', `${s.droppedImplausible} points`] as [string, string]]
      : []),
    ['point extent', fmtExtent(s.extent.points)],
    ['trajectory', fmtExtent(s.extent.trajectory)],
    [
      'labels',
      s.labels
        ? `${s.labels.boxes} boxes, ${s.labels.tracks} tracks (${Object.entries(s.labels.classes)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')})`
        : 'none',
    ],
  ];
  return rows.map(([k, v]) => `${k.padEnd(16)} ${v}`).join('\n');
}
