// The pace tally of tools/report/expertPace.ts on one held-out town with the shipped model: the same driven
// states labelled by the expert with and without catching up with the log, and shares that are shares.
import { describe, expect, it } from 'vitest';
import { SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { scenariosFromSpec } from '../../../simulation/training/scenarioSpec.ts';
import { DEFAULT_PACE, expertPace } from '../../../tools/report/expertPace.ts';
import { DEFAULT_HESITATION, startHesitation } from '../../../tools/report/startHesitation.ts';
import { TYPE_CODE } from '../../../simulation/env.ts';

describe('expertPace', () => {
  it('labels the driver’s own states: catching up never lowers the label behind the log, the driver is unchanged', () => {
    const scenarios = scenariosFromSpec('town:211', '--scenarios');
    const withCatchUp = expertPace(scenarios, SHIPPED_AGENT_MODEL, 1, { ...DEFAULT_PACE, catchUpS: 2 });
    const without = expertPace(scenarios, SHIPPED_AGENT_MODEL, 1, { ...DEFAULT_PACE, catchUpS: 0 });
    expect(withCatchUp.steps).toBeGreaterThan(100);
    expect(withCatchUp.behindSteps).toBeGreaterThan(0);
    // The expert only labels: the driver's rollout is the same either way.
    expect(without.steps).toBe(withCatchUp.steps);
    expect(without.driverAccelMps2).toBe(withCatchUp.driverAccelMps2);
    expect(without.speedOverLog).toBe(withCatchUp.speedOverLog);
    // A higher desired speed where the log is ahead: the labels there rise (or stay).
    expect(withCatchUp.behindExpertAccelMps2).toBeGreaterThanOrEqual(without.behindExpertAccelMps2);
    for (const t of [withCatchUp, without]) {
      for (const share of [t.expertFaster, t.driverFaster]) {
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
      }
      expect(t.speedOverLog).toBeGreaterThan(0);
      // Every labelled step has one binding limit; free road labels are the highest on average.
      const shares = Object.values(t.bound).map((b) => b.share);
      expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
      expect(t.bound['free road'].expertAccelMps2).toBeGreaterThan(t.bound.leader.expertAccelMps2);
    }
  }, 60_000);
});

describe('the pace and hesitation reports per class', () => {
  it('tally cyclists apart from vehicles: fewer steps, from the same rollout', () => {
    const scenarios = scenariosFromSpec('town:212', '--scenarios');
    const vehicles = expertPace(scenarios, SHIPPED_AGENT_MODEL, 1, DEFAULT_PACE);
    const cyclists = expertPace(scenarios, SHIPPED_AGENT_MODEL, 1, { ...DEFAULT_PACE, agentClass: 3 });
    expect(cyclists.steps).toBeGreaterThan(0);
    expect(cyclists.steps).toBeLessThan(vehicles.steps);
    const hv = startHesitation(scenarios, SHIPPED_AGENT_MODEL, 1, DEFAULT_HESITATION);
    const hc = startHesitation(scenarios, SHIPPED_AGENT_MODEL, 1, {
      ...DEFAULT_HESITATION,
      typeCode: TYPE_CODE.cyclist,
    });
    expect(hc.moving + hc.standing).toBeGreaterThan(0);
    expect(hc.moving + hc.standing).toBeLessThan(hv.moving + hv.standing);
    expect(hc.hesitating).toBeLessThanOrEqual(hc.standing);
  }, 60_000);
});
