// Cross-validated choice of discovery's sweep settings over data sets (issue 18.3): each candidate's raw
// boxes are scored on every set; a setting is chosen on some sets and reported on the others, never on both.
// Usage: node --import tsx tools/report/discoveryCv.ts [--out DIR] [--json] <synthetic labelled log>...
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Boxes, concatBoxes } from '../../core/arrow/records.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { createProgress } from '../../core/progress.ts';
import type { PointCloud } from '../../core/arrow/records.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { baselineSweep } from '../../perception/baseline.ts';
import { discoverSweep, type DiscoverConfigInput, resolveDiscoverConfig } from '../../perception/discover.ts';
import { scoreRangeClass } from '../../perception/eval/rangeClassScore.ts';
import { importRealSources, type LabelledLog, openLabelled } from './realEval.ts';

/** The candidate settings: every combination of these knobs (documented in docs/discovery.md). */
export const CV_KNOBS: Record<string, Record<string, DiscoverConfigInput>> = {
  // Every option sets its values explicitly, so the grid does not move when the defaults do.
  density: {
    fixed: { cluster: { minPointsRefRangeM: 0 }, boxfit: { minPointsRefRangeM: 0 } },
    'scaled beyond 10 m': {
      cluster: { minPointsRefRangeM: 10, minPointsFloor: 4 },
      boxfit: { minPointsRefRangeM: 10, minPointsFloor: 4 },
    },
  },
  minPoints: {
    'at least 10': { cluster: { minPoints: 10 }, boxfit: { minPoints: 10 } },
    'at least 6': { cluster: { minPoints: 6 }, boxfit: { minPoints: 6 } },
  },
  smallObjects: {
    'volume ≥ 0.1 m³': { boxfit: { minVolumeM3: 0.1 } },
    'volume ≥ 0.03 m³': { boxfit: { minVolumeM3: 0.03 } },
  },
  footprint: {
    'as fitted': { boxfit: { minFootprintM: 0 } },
    'at least 0.6 m': { boxfit: { minFootprintM: 0.6 } },
  },
  fragments: {
    merge: { fragments: { enabled: true, minAcrossM: 0 } },
    'merge wide only (≥ 0.9 m)': { fragments: { enabled: true, minAcrossM: 0.9 } },
    'merge wide only (≥ 1.2 m)': { fragments: { enabled: true, minAcrossM: 1.2 } },
    off: { fragments: { enabled: false } },
  },
};

/** Merge partial configs one level deep (later wins). */
function merge(parts: DiscoverConfigInput[]): DiscoverConfigInput {
  const out: Record<string, Record<string, unknown>> = {};
  for (const p of parts)
    for (const [k, v] of Object.entries(p)) out[k] = { ...(out[k] ?? {}), ...(v as Record<string, unknown>) };
  return out as DiscoverConfigInput;
}

/** Every combination of the knobs: a name ("density=fixed, …") and its config. */
export function cvCandidates(): {
  name: string;
  choice: Record<string, string>;
  input: DiscoverConfigInput;
}[] {
  let list = [{ choice: {} as Record<string, string>, parts: [] as DiscoverConfigInput[] }];
  for (const [knob, options] of Object.entries(CV_KNOBS))
    list = list.flatMap((c) =>
      Object.entries(options).map(([opt, v]) => ({
        choice: { ...c.choice, [knob]: opt },
        parts: [...c.parts, v],
      })),
    );
  return list.map((c) => ({
    name: Object.entries(c.choice)
      .map(([k, v]) => `${k}=${v}`)
      .join(', '),
    choice: c.choice,
    input: merge(c.parts),
  }));
}

interface LoadedSet {
  log: LabelledLog;
  frames: { index: number; points: PointCloud }[];
}

async function load(l: LabelledLog): Promise<LoadedSet> {
  const reader = await LogReader.open(l.dir);
  try {
    const frames = [];
    for await (const f of reader.iterFrames()) frames.push({ index: f.frameIndex, points: f.points });
    return { log: l, frames };
  } finally {
    await reader.close();
  }
}

const ap040 = (set: LoadedSet, pred: Boxes) =>
  scoreRangeClass([{ pred, gt: set.log.gt, halfFovDeg: set.log.source.halfFovDeg }]).ap['0-40'] ?? 0;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      out: { type: 'string', default: path.join(REPO_ROOT, 'out', 'eval-real') },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const real = await importRealSources(values.out!);
  const synthetic = await Promise.all(
    positionals.map((dir) =>
      openLabelled(dir, {
        name: path.basename(dir),
        dataset: `synthetic ${path.basename(dir)}`,
        folder: dir,
        format: 'log',
        halfFovDeg: null,
        sequence: true,
      }),
    ),
  );
  const sets = await Promise.all([...real, ...synthetic].map(load));
  const names = sets.map((s) => s.log.source.name);
  const candidates = cvCandidates();
  const bar = createProgress('cv', candidates.length, { silent: values.json });
  const table = candidates.map((c) => {
    const cfg = resolveDiscoverConfig(c.input);
    const aps = sets.map((s) =>
      ap040(s, concatBoxes(s.frames.map((f) => discoverSweep(f.points, cfg, f.index).boxes))),
    );
    bar.tick(1);
    return { ...c, aps };
  });
  bar.stop();
  const baseline = sets.map((s) =>
    ap040(s, concatBoxes(s.frames.map((f) => baselineSweep(f.points, {}, f.index).boxes))),
  );
  // Folds: each real data set is reported by the candidate chosen on the synthetic sets and the other real ones.
  const realNames = real.map((l) => l.source.name);
  // Plus one fold that holds out every real set: the setting chosen on synthetic sweeps alone (the default).
  const heldOutSets = [...realNames.map((n) => [n]), realNames];
  const folds = heldOutSets.map((heldSet) => {
    const held = heldSet.join(' + ');
    const select = names.map((n, k) => (!heldSet.includes(n) ? k : -1)).filter((k) => k >= 0);
    let best = 0;
    let bestScore = -Infinity;
    table.forEach((row, i) => {
      const score = select.reduce((a, k) => a + row.aps[k], 0) / select.length;
      if (score > bestScore) [best, bestScore] = [i, score];
    });
    const hs = heldSet.map((n) => names.indexOf(n));
    const at = (aps: number[]) => hs.map((h) => aps[h]);
    return {
      heldOut: held,
      chosenOn: select.map((k) => names[k]),
      chosen: table[best].name,
      selectionMeanAp: bestScore,
      heldOutAp: at(table[best].aps),
      oldDefaultAp: at(table[0].aps),
      dbscanAp: at(baseline),
    };
  });
  if (values.json) {
    process.stdout.write(JSON.stringify({ sets: names, baseline, candidates: table, folds }) + '\n');
    return;
  }
  const pct = (v: number) => (100 * v).toFixed(1);
  const lines = [
    `| candidate | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---:|').join('')}`,
    `| DBSCAN baseline | ${baseline.map(pct).join(' | ')} |`,
    ...table.map((r) => `| ${r.name} | ${r.aps.map(pct).join(' | ')} |`),
    '',
    '| held out | chosen on | chosen setting | held-out AP 0–40 m | with the settings before issue 18 | DBSCAN |',
    '|---|---|---|---:|---:|---:|',
    ...folds.map(
      (f) =>
        `| ${f.heldOut} | ${f.chosenOn.join(', ')} | ${f.chosen} | ${f.heldOutAp.map(pct).join(' / ')} | ${f.oldDefaultAp.map(pct).join(' / ')} | ${f.dbscanAp.map(pct).join(' / ')} |`,
    ),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

await main();
