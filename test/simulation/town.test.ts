// The town's structure: deterministic per seed; straight, curved and multi-lane roads, 3/4-way junctions with a
// consistent lane graph, sidewalks, crosswalks, all static object kinds, realistic road-user sizes, a scenario.
import { beforeAll, describe, expect, it } from 'vitest';
import { polylineLength, projectOntoPolyline } from '../../core/geometry/polyline.ts';
import { wrapAngle } from '../../core/geometry/pose.ts';
import { scenarioToJson } from '../../simulation/scenarioIo.ts';
import { type Town, generateTown } from '../../simulation/town/town.ts';

const STEPS = 20;
let town: Town;

beforeAll(() => {
  town = generateTown({ seed: 7 }, STEPS);
});

describe('procedural town', () => {
  it('is identical for the same seed and different for another', () => {
    const again = generateTown({ seed: 7 }, STEPS);
    expect(JSON.stringify(scenarioToJson(again.scenario))).toBe(
      JSON.stringify(scenarioToJson(town.scenario)),
    );
    expect(again.staticWorld.objects).toEqual(town.staticWorld.objects);
    const other = generateTown({ seed: 8, cars: 2, pedestrians: 2 }, 2);
    expect(other.network.nodes.map((n) => n.x)).not.toEqual(town.network.nodes.map((n) => n.x));
  });

  it('has 3- and 4-way junctions, multi-lane roads, and both straight and curved roads', () => {
    const degrees = town.network.nodes.map((n) => n.degree);
    expect(degrees).toContain(3);
    expect(degrees).toContain(4);
    expect(Math.min(...degrees)).toBeGreaterThanOrEqual(2);
    expect(town.network.roads.some((r) => r.lanesPerDir === 2)).toBe(true);
    expect(town.network.roads.some((r) => r.lanesPerDir === 1)).toBe(true);
    // Straightness: arc length over chord. A straight road is ~1, a curved one clearly more.
    const ratio = town.network.roads.map((r) => {
      const n = r.ref.length;
      return r.lengthM / Math.hypot(r.ref[n - 2] - r.ref[0], r.ref[n - 1] - r.ref[1]);
    });
    expect(Math.min(...ratio)).toBeLessThan(1.001);
    expect(Math.max(...ratio)).toBeGreaterThan(1.01);
  });

  it('links every lane into a consistent graph: successors continue where a lane ends, neighbours are mutual', () => {
    const lanes = town.lanes;
    for (const l of lanes) {
      expect(l.successors.length).toBeGreaterThan(0);
      const ex = l.xy[l.xy.length - 2];
      const ey = l.xy[l.xy.length - 1];
      for (const s of l.successors) {
        const next = lanes[s];
        expect(Math.hypot(next.xy[0] - ex, next.xy[1] - ey)).toBeLessThan(0.05);
        expect(next.predecessors).toContain(l.id);
      }
      for (const n of l.left) expect(lanes[n].right).toContain(l.id);
      for (const n of l.right) expect(lanes[n].left).toContain(l.id);
      // Neighbours run side by side one lane width apart, in the same direction.
      for (const n of [...l.left, ...l.right]) {
        const mid = Math.floor(l.xy.length / 4) * 2;
        const p = projectOntoPolyline(lanes[n].xy, l.xy[mid], l.xy[mid + 1]);
        expect(p.distance).toBeCloseTo(town.config.laneWidthM, 1);
      }
    }
    // Every 3- and 4-way junction offers every turn and has conflicting movements.
    for (const node of town.network.nodes.filter((n) => n.degree >= 3)) {
      const conns = lanes.filter((l) => l.kind === 'connector' && l.nodeId === node.id);
      // A T has through traffic (straight) and the stem's left and right turns; a crossing has all three too.
      expect(new Set(conns.map((c) => c.turn))).toEqual(new Set(['left', 'right', 'straight']));
      expect(conns.some((c) => c.conflicts.length > 0)).toBe(true);
    }
  });

  it('draws sidewalks along both sides of every road, crosswalks at every arm of 3/4-way junctions and stop lines', () => {
    const map = town.map;
    expect(map.sidewalks.length).toBeGreaterThanOrEqual(2 * town.network.roads.length);
    const arms = town.network.nodes.filter((n) => n.degree >= 3).reduce((s, n) => s + n.degree, 0);
    expect(map.crosswalks.length).toBe(arms);
    expect(map.stopLines.length).toBeGreaterThan(0);
    for (const s of map.stopLines) expect(town.lanes[s.laneId].kind).toBe('road');
    expect(map.roadEdges.length).toBeGreaterThan(2 * town.network.roads.length);
    // A pedestrian network with crosswalk edges joining the two sides of a road.
    expect(town.walking.edges.filter((e) => e.kind === 'crosswalk').length).toBe(arms);
  });

  it('places every kind of static object, clear of the roads', () => {
    const kinds = new Set(town.staticWorld.objects.map((o) => o.kind));
    for (const k of ['building', 'wall', 'hedge', 'tree', 'streetLight', 'signPole', 'bush'])
      expect(kinds).toContain(k);
    expect(town.staticWorld.parked.length).toBeGreaterThan(10);
    // Building centres lie beyond every road's curb and sidewalk.
    for (const b of town.staticWorld.objects.filter((o) => o.kind === 'building')) {
      for (const r of town.network.roads) {
        const p = projectOntoPolyline(r.ref, b.x, b.y, r.cum);
        const half = p.lateral >= 0 ? r.halfWidthLeftM : r.halfWidthRightM;
        expect(p.distance).toBeGreaterThan(half + town.config.sidewalkWidthM);
      }
    }
  });

  it('gives road users sizes in their class range (KITTI-like)', () => {
    const tr = town.traffic.tracks;
    const range: Record<string, [number, number, number, number]> = {
      // min/max length, min/max height
      car: [3.3, 5.2, 1.3, 1.9],
      van: [4.4, 6.3, 1.85, 2.65],
      truck: [6.9, 12.1, 2.75, 3.85],
      cyclist: [1.5, 2.0, 1.5, 2.0],
      pedestrian: [0.35, 0.9, 1.0, 2.0],
    };
    const seen = new Set<string>();
    town.traffic.classes.forEach((cls, a) => {
      seen.add(cls);
      const [l0, l1, h0, h1] = range[cls];
      expect(tr.length[a]).toBeGreaterThanOrEqual(l0);
      expect(tr.length[a]).toBeLessThanOrEqual(l1);
      expect(tr.height[a]).toBeGreaterThanOrEqual(h0);
      expect(tr.height[a]).toBeLessThanOrEqual(h1);
    });
    expect(seen).toEqual(new Set(['car', 'van', 'truck', 'cyclist', 'pedestrian']));
    // Sizes vary within a class (a distribution, not one box).
    const cars = town.traffic.classes.flatMap((c, a) => (c === 'car' ? [tr.length[a]] : []));
    expect(Math.max(...cars) - Math.min(...cars)).toBeGreaterThan(0.5);
  });

  it('writes a scenario the simulator can use: ego first with a route of linked lanes, tracks at 10 Hz', () => {
    const s = town.scenario;
    expect(s.dtS).toBeCloseTo(0.1);
    expect(s.numSteps).toBe(STEPS);
    expect(s.egoIndex).toBe(0);
    expect(town.traffic.roles[0]).toBe('ego');
    const route = s.routes[s.egoIndex];
    expect(route.length).toBeGreaterThan(1);
    for (let k = 1; k < route.length; k++) {
      const prev = town.lanes[route[k - 1]];
      const linked =
        prev.successors.includes(route[k]) || prev.left.includes(route[k]) || prev.right.includes(route[k]);
      expect(linked).toBe(true);
    }
    // The ego drives: it covers ground and its heading follows its motion.
    const tr = s.agents;
    const d = Math.hypot(tr.x[STEPS - 1] - tr.x[0], tr.y[STEPS - 1] - tr.y[0]);
    expect(d).toBeGreaterThan(5);
    const heading = Math.atan2(tr.y[STEPS - 1] - tr.y[STEPS - 2], tr.x[STEPS - 1] - tr.x[STEPS - 2]);
    expect(Math.abs(wrapAngle(heading - tr.yaw[STEPS - 1]))).toBeLessThan(0.3);
    expect(polylineLength(town.lanes[route[0]].xy)).toBeGreaterThan(0);
  });
});
