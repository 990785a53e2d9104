// Logged demonstrations without the waits the observation cannot explain (DemoOptions.dropUnexplainedWaits):
// standing on the lane where IDM says go, no crossing conflict observed, and the log staying put.
import { describe, expect, it } from 'vitest';
import { IDM_ACCEL_FEATURE, PARKED_FEATURE } from '../../../simulation/expertFeatures.ts';
import { DEFAULT_OBSERVATION, observationOffsets } from '../../../simulation/observation.ts';
import { ActionBins, DEFAULT_ACTION_BINS } from '../../../simulation/training/actionBins.ts';
import { buildDemoSet } from '../../../simulation/training/demoData.ts';
import { scenariosFromSpec } from '../../../simulation/training/scenarioSpec.ts';

describe('demonstrations without unexplained waits', () => {
  it('drops exactly the standing rows whose expert block says go and which stay, and keeps the rest', () => {
    const scenarios = scenariosFromSpec('town:211-212', '--scenarios');
    const bins = new ActionBins(DEFAULT_ACTION_BINS);
    const obsCfg = { ...DEFAULT_OBSERVATION, crossings: 2 };
    const all = buildDemoSet(scenarios, bins, obsCfg);
    const kept = buildDemoSet(scenarios, bins, obsCfg, { dropUnexplainedWaits: true });
    const { expert, crossings, size } = observationOffsets(obsCfg);
    const nk = bins.curvature.length;
    const isWait = (set: typeof all, q: number) => {
      const o = q * size;
      return (
        set.obs[o] < 0.3 &&
        set.obs[o + expert] === 1 &&
        set.obs[o + expert + PARKED_FEATURE] === 0 &&
        set.obs[o + expert + IDM_ACCEL_FEATURE] >= 0.5 &&
        set.obs[o + crossings] === 0 &&
        bins.accel[Math.floor(set.action[q] / nk)] < 0.3
      );
    };
    let waits = 0;
    for (let q = 0; q < all.count; q++) if (isWait(all, q)) waits++;
    expect(waits).toBeGreaterThan(0);
    expect(kept.droppedWaits).toBe(waits);
    expect(kept.count).toBe(all.count - waits);
    for (let q = 0; q < kept.count; q++) expect(isWait(kept, q)).toBe(false);
  }, 60_000);
});
