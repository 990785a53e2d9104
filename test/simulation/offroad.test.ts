// Off-road distance on the fixture road (known to span y ∈ [−1.75, 5.25]) built from drivable polygons,
// road edges or lane corridors alike: hand-placed points and cars; a map without roads never flags off-road.
import { describe, expect, it } from 'vitest';
import { boxRoadDistance, buildDrivableField, signedDistance } from '../../simulation/map/drivableField.ts';
import { emptyMap, type RoadMap } from '../../simulation/scenario.ts';
import { straightRoadScenario } from './fixtures.ts';

// The fixture road spans y ∈ [−1.75, 5.25] for x ∈ [0, 200].
function variants(): [string, RoadMap][] {
  const polygons = straightRoadScenario().map;
  const edges = straightRoadScenario().map;
  edges.drivableAreas = [];
  // Road on the left of each edge: the lower edge runs +x, the upper one −x.
  edges.roadEdges = [
    { id: 1, xy: Float32Array.of(0, -1.75, 100, -1.75, 200, -1.75) },
    { id: 2, xy: Float32Array.of(200, 5.25, 0, 5.25) },
  ];
  const lanes = straightRoadScenario().map;
  lanes.drivableAreas = [];
  lanes.roadEdges = [];
  return [
    ['drivable polygons', polygons],
    ['road edges', edges],
    ['lane corridors', lanes],
  ];
}

describe('off-road', () => {
  for (const [name, map] of variants()) {
    it(`measures the footprint against the road (${name})`, () => {
      const f = buildDrivableField(map);
      expect(f.source).toBe(
        name === 'drivable polygons' ? 'drivable_areas' : name === 'road edges' ? 'road_edges' : 'lanes',
      );
      const tol = f.resM; // raster accuracy
      // Centre of the road: 3.5 m from either boundary.
      expect(signedDistance(f, 50, 1.75)).toBeCloseTo(-3.5, 0);
      expect(Math.abs(signedDistance(f, 50, 1.75) + 3.5)).toBeLessThan(tol);
      expect(Math.abs(signedDistance(f, 50, 8.25) - 3)).toBeLessThan(tol);
      expect(Math.abs(signedDistance(f, 50, -3.75) - 2)).toBeLessThan(tol);
      // A car in its lane is on the road; one straddling the curb by 0.5 m is off-road; a car
      // across the road (4.5 m long, rotated 90°) fits as well.
      expect(boxRoadDistance(f, 60, 0, 0, 4.5, 2)).toBeLessThan(-0.5);
      expect(boxRoadDistance(f, 60, -1.25, 0, 4.5, 2)).toBeGreaterThan(0);
      expect(boxRoadDistance(f, 60, 6.5, 0.1, 4.5, 2)).toBeGreaterThan(0);
      expect(boxRoadDistance(f, 60, 1.75, Math.PI / 2, 4.5, 2)).toBeLessThan(0);
      // Beyond the mapped area (map extent + margin) nothing is judged.
      expect(signedDistance(f, -500, 0)).toBeNaN();
      expect(boxRoadDistance(f, -500, 0, 0, 4, 2)).toBeNaN();
    });
  }

  it('never flags off-road on a map without road information', () => {
    const f = buildDrivableField(emptyMap());
    expect(f.source).toBe('none');
    expect(boxRoadDistance(f, 0, 0, 0, 4, 2)).toBe(-Infinity);
  });
});

describe('off-road on a synthetic town', () => {
  it("the town's own moving vehicles never leave the drivable area (lanes through tight junction curbs)", async () => {
    const { generateTown } = await import('../../simulation/town/town.ts');
    const { mapIndex } = await import('../../simulation/map/mapIndex.ts');
    // Seed 301 has vehicles turning right past a curb that clipped their lane by up to 0.41 m.
    const s = generateTown({ seed: 301 }, 91).scenario;
    const field = mapIndex(s.map).field;
    const T = s.numSteps;
    const A = s.agents;
    let moving = 0;
    let worst = -Infinity;
    for (let a = 0; a < A.ids.length; a++) {
      const k0 = a * T + s.currentStep;
      if (A.types[a] !== 'vehicle' || !A.valid[k0] || Math.hypot(A.vx[k0], A.vy[k0]) < 1) continue;
      moving++;
      for (let t = s.currentStep; t < T; t++) {
        const k = a * T + t;
        if (A.valid[k])
          worst = Math.max(worst, boxRoadDistance(field, A.x[k], A.y[k], A.yaw[k], A.length[a], A.width[a]));
      }
    }
    expect(moving).toBeGreaterThan(10);
    expect(worst).toBeLessThanOrEqual(0);
  }, 60_000);
});
