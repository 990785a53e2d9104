// The Sim Agents metric pinned to the official code: golden component values of log replay on the real
// WOMD scenario (from an independent port of waymo-open-dataset's metrics), the 3-D road-edge search,
// and the red-light rule's lane types and stop states.
import { describe, expect, it } from 'vitest';
import { realData } from '../../../../core/paths.ts';
import {
  buildRoadEdgeIndex,
  signedDistanceToRoadEdge,
} from '../../../../simulation/metrics/wosac/roadEdge.ts';
import { logReplayRollouts } from '../../../../simulation/metrics/wosac/rollouts.ts';
import { scoreScenarioRollouts } from '../../../../simulation/metrics/wosac/score.ts';
import { buildLightIndex, runsRedLight } from '../../../../simulation/metrics/wosac/trafficLight.ts';
import {
  emptyMap,
  LIGHT,
  type Lane,
  NO_SIGNAL_STATE,
  SIGNAL_STATE_NAMES,
} from '../../../../simulation/scenario.ts';
import { loadScenarios } from '../../../../simulation/scenarioSources.ts';
import { describeWithSharedData, itWithSharedData } from '../../../sharedData.ts';

describeWithSharedData('WOSAC golden values (WOMD 637f20cafde22ff8, replay × 32)', () => {
  itWithSharedData(
    'every component agrees with the official algorithm to 1e-5',
    () => {
      const [{ scenario: s }] = loadScenarios(realData('womd', 'motion_data_one_scenario.tfrecord'));
      expect(s.id).toBe('637f20cafde22ff8');
      const r = scoreScenarioRollouts(s, logReplayRollouts(s, 32));
      expect(r.scoredAgents).toBe(4); // SDC + 3 tracks_to_predict
      // Computed by an independent numpy port of the official sim_agents_metrics (2025 config, float32).
      const golden = {
        linearSpeed: 0.826529,
        linearAcceleration: 0.530525,
        angularSpeed: 0.487326,
        angularAcceleration: 0.656286,
        distanceToNearestObject: 0.400351,
        collisionIndication: 0.999969,
        distanceToRoadEdge: 0.559178,
        offroadIndication: 0.999969,
      };
      for (const [k, v] of Object.entries(golden))
        expect(Math.abs(r.components[k as keyof typeof golden] - v), k).toBeLessThanOrEqual(1e-5);
    },
    60_000,
  );
});

describe('WOSAC road edge in 3-D', () => {
  // An overpass: its edge runs 8 m up, 1 m from the point in plan; the road's own edge is 2 m away at
  // ground level, on the other side (the point is on the road, port side of it).
  const edges = [
    { id: 1, xy: Float32Array.of(0, 1, 20, 1), z: Float32Array.of(8, 8) },
    { id: 2, xy: Float32Array.of(0, -2, 20, -2), z: Float32Array.of(0, 0) },
  ];

  it('picks the nearest segment with heights stretched × 3 and returns the planar distance to it', () => {
    const ix = buildRoadEdgeIndex(edges);
    expect(ix.hasZ).toBe(true);
    // Off the overpass's edge by 1 m in plan, but 24 m away in stretched 3-D: the ground edge wins.
    expect(signedDistanceToRoadEdge(ix, 10, 0, 0)).toBeCloseTo(-2, 9);
    // On the overpass the overpass's edge is the nearest (and the point is off its road side).
    expect(signedDistanceToRoadEdge(ix, 10, 0, 8)).toBeCloseTo(1, 9);
    // Without a height the search stays planar.
    expect(signedDistanceToRoadEdge(ix, 10, 0)).toBeCloseTo(1, 9);
  });

  it('a small height difference does not beat a much nearer segment (stretched, not replaced)', () => {
    const ix = buildRoadEdgeIndex([
      { id: 1, xy: Float32Array.of(0, 1, 20, 1), z: Float32Array.of(0.5, 0.5) },
      { id: 2, xy: Float32Array.of(0, -2, 20, -2), z: Float32Array.of(0, 0) },
    ]);
    // √(1 + 1.5²) = 1.80 < 2: still the first edge, planar distance 1.
    expect(signedDistanceToRoadEdge(ix, 10, 0, 0)).toBeCloseTo(1, 9);
  });

  it('the grid search equals a full 3-D scan (inside and outside the candidate table)', () => {
    // Edges at three levels (0, 4 and 9 m) crossing each other, queried at heights between them.
    const edges = Array.from({ length: 40 }, (_, i) => {
      const x0 = (i * 11) % 200;
      const y0 = (i * 17) % 90;
      const h = [0, 4, 9][i % 3];
      return {
        id: i,
        xy: Float32Array.of(x0, y0, x0 + 12, y0 + 5, x0 + 20, y0 - 3),
        z: Float32Array.of(h, h + 0.5, h + 1),
      };
    });
    const ix = buildRoadEdgeIndex(edges);
    for (let q = 0; q < 400; q++) {
      const px = ((q * 37) % 320) - 60;
      const py = ((q * 53) % 170) - 40;
      const pz = (q % 7) * 1.6 - 0.5;
      let best = Infinity;
      let planar = NaN;
      for (let g = 0; g < ix.sx.length; g++) {
        const len2 = ix.dx[g] ** 2 + ix.dy[g] ** 2;
        const t = ((px - ix.sx[g]) * ix.dx[g] + (py - ix.sy[g]) * ix.dy[g]) / len2;
        const c = Math.min(1, Math.max(0, t));
        const ex = px - ix.sx[g] - c * ix.dx[g];
        const ey = py - ix.sy[g] - c * ix.dy[g];
        const ez = 3 * (pz - ix.sz[g] - c * ix.dz[g]);
        const d = Math.sqrt(ex * ex + ey * ey + ez * ez);
        if (d < best) {
          best = d;
          planar = Math.hypot(ex, ey);
        }
      }
      expect(Math.abs(signedDistanceToRoadEdge(ix, px, py, pz)), `query ${q}`).toBeCloseTo(planar, 9);
    }
  });

  it('edges without heights keep the planar search', () => {
    const ix = buildRoadEdgeIndex(edges.map(({ id, xy }) => ({ id, xy })));
    expect(ix.hasZ).toBe(false);
    expect(signedDistanceToRoadEdge(ix, 10, 0, 0)).toBeCloseTo(1, 9);
  });
});

describe('WOSAC red light: surface streets and stop states', () => {
  const lane = (id: number, y: number, laneType?: Lane['laneType']): Lane => ({
    id,
    xy: Float32Array.of(0, y, 0.5, y, 50, y, 50.5, y, 100, y),
    widthM: 3.5,
    speedLimitMps: 15,
    successors: [],
    predecessors: [],
    leftNeighbors: [],
    rightNeighbors: [],
    inIntersection: false,
    ...(laneType ? { laneType } : {}),
  });
  const code = (n: (typeof SIGNAL_STATE_NAMES)[number]) => SIGNAL_STATE_NAMES.indexOf(n);

  it('only surface-street lanes carry a violation; untyped maps keep every lane', () => {
    for (const [type, counts] of [
      ['surface_street', true],
      ['freeway', false],
      ['bike_lane', false],
      ['undefined', false],
    ] as const) {
      const map = emptyMap();
      map.lanes.push(lane(1, 0, type), lane(2, 10, 'surface_street'));
      map.trafficLights.push({ laneId: 1, stopX: 50.2, stopY: 0, states: Uint8Array.of(LIGHT.red) });
      expect(runsRedLight(buildLightIndex(map, true), 0, 50.1, 0, 50.3, 0), type).toBe(counts);
    }
    const untyped = emptyMap();
    untyped.lanes.push(lane(1, 0));
    untyped.trafficLights.push({ laneId: 1, stopX: 50.2, stopY: 0, states: Uint8Array.of(LIGHT.red) });
    expect(runsRedLight(buildLightIndex(untyped, true), 0, 50.1, 0, 50.3, 0)).toBe(true);
  });

  it('stop and arrow stop are a red light; flashing stop (folded into red) is not', () => {
    const states = ['stop', 'arrow_stop', 'flashing_stop', 'caution', 'go'] as const;
    const map = emptyMap();
    map.lanes.push(lane(1, 0, 'surface_street'));
    map.trafficLights.push({
      laneId: 1,
      stopX: 50.2,
      stopY: 0,
      // The simplified states fold flashing stop into red, as the WOMD import does.
      states: Uint8Array.of(LIGHT.red, LIGHT.red, LIGHT.red, LIGHT.yellow, LIGHT.green, LIGHT.red),
      signalStates: Uint8Array.from([...states.map(code), NO_SIGNAL_STATE]),
    });
    const ix = buildLightIndex(map, true);
    const ran = states.map((_, k) => runsRedLight(ix, k, 50.1, 0, 50.3, 0));
    expect(ran).toEqual([true, true, false, false, false]);
    expect(runsRedLight(ix, states.length, 50.1, 0, 50.3, 0)).toBe(false); // no state listed
  });
});
