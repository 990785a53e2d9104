// Town traffic over 15 s: no two agents ever overlap (checked with core's polygon clipping), vehicles keep lanes
// and plausible speeds, yield and change lanes; pedestrians stay on sidewalks and crosswalks and cross.
import { beforeAll, describe, expect, it } from 'vitest';
import { bevIntersectionArea } from '../../core/geometry/iou.ts';
import { projectOntoPolyline } from '../../core/geometry/polyline.ts';
import { type Town, generateTown } from '../../simulation/town/town.ts';

const STEPS = 150;
let town: Town;

function insidePolygon(xy: ArrayLike<number>, x: number, y: number): boolean {
  let inside = false;
  const n = xy.length >> 1;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const yi = xy[2 * i + 1];
    const yj = xy[2 * j + 1];
    if (yi > y !== yj > y && x < ((xy[2 * j] - xy[2 * i]) * (y - yi)) / (yj - yi) + xy[2 * i])
      inside = !inside;
  }
  return inside;
}

beforeAll(() => {
  town = generateTown({ seed: 3 }, STEPS);
});

describe('town traffic', () => {
  it('never lets two agents overlap at any step', () => {
    const tr = town.traffic.tracks;
    const n = tr.ids.length;
    const box = (a: number, t: number) => {
      const k = a * STEPS + t;
      return {
        cx: tr.x[k],
        cy: tr.y[k],
        cz: 0,
        length: tr.length[a],
        width: tr.width[a],
        height: 1,
        yaw: tr.yaw[k],
      };
    };
    let overlaps = 0;
    let closePairs = 0;
    for (let t = 0; t < STEPS; t++) {
      for (let a = 0; a < n; a++) {
        for (let b = a + 1; b < n; b++) {
          const ka = a * STEPS + t;
          const kb = b * STEPS + t;
          if (Math.hypot(tr.x[ka] - tr.x[kb], tr.y[ka] - tr.y[kb]) > 15) continue;
          closePairs++;
          if (bevIntersectionArea(box(a, t), box(b, t)) > 0) overlaps++;
        }
      }
    }
    expect(overlaps).toBe(0);
    // The check had something to check: agents do come close to each other (queues, parked cars).
    expect(closePairs).toBeGreaterThan(1000);
    expect(town.traffic.leakedReservations).toBe(0);
  });

  it('keeps vehicles on their lanes at plausible speeds and accelerations', () => {
    const tr = town.traffic.tracks;
    const lanes = town.lanes;
    const fastest = Math.max(...lanes.map((l) => l.speedLimitMps));
    let moved = 0;
    let vehicles = 0;
    town.traffic.roles.forEach((role, a) => {
      if (role !== 'vehicle' && role !== 'ego' && role !== 'cyclist') return;
      vehicles++;
      let dist = 0;
      for (let t = 1; t < STEPS; t++) {
        const k = a * STEPS + t;
        const v = Math.hypot(tr.x[k] - tr.x[k - 1], tr.y[k] - tr.y[k - 1]) / town.scenario.dtS;
        dist += v * town.scenario.dtS;
        expect(v).toBeLessThan(fastest * 1.25);
        if (t > 1) {
          const v0 = Math.hypot(tr.x[k - 1] - tr.x[k - 2], tr.y[k - 1] - tr.y[k - 2]) / town.scenario.dtS;
          expect(Math.abs(v - v0) / town.scenario.dtS).toBeLessThan(12);
        }
      }
      if (dist > 10) moved++;
      for (let t = 0; t < STEPS; t += 15) {
        const k = a * STEPS + t;
        let best = Infinity;
        for (const l of lanes)
          best = Math.min(best, projectOntoPolyline(l.xy, tr.x[k], tr.y[k], l.cum).distance);
        // Within half a lane of some lane centre (a lane change passes between two).
        expect(best).toBeLessThan(town.config.laneWidthM / 2 + 0.1);
      }
    });
    expect(moved / vehicles).toBeGreaterThan(0.8);
  });

  it('yields at junctions, changes lanes, and lets pedestrians cross', () => {
    expect(town.traffic.junctionHolds).toBeGreaterThan(0);
    expect(town.traffic.laneChanges).toBeGreaterThan(0);
    expect(town.traffic.crossings).toBeGreaterThan(0);
  });

  it('keeps pedestrians on sidewalks and crosswalks, some of them crossing a road', () => {
    const tr = town.traffic.tracks;
    const walkable = [...town.map.sidewalks, ...town.map.crosswalks];
    let onCrosswalk = 0;
    let samples = 0;
    town.traffic.roles.forEach((role, a) => {
      if (role !== 'pedestrian') return;
      for (let t = 0; t < STEPS; t += 5) {
        const k = a * STEPS + t;
        samples++;
        expect(walkable.some((f) => insidePolygon(f.xy, tr.x[k], tr.y[k]))).toBe(true);
        if (town.map.crosswalks.some((f) => insidePolygon(f.xy, tr.x[k], tr.y[k]))) onCrosswalk++;
      }
    });
    expect(samples).toBeGreaterThan(100);
    expect(onCrosswalk).toBeGreaterThan(0);
  });

  it('has pedestrians walk at human speeds and parked cars stand still', () => {
    const tr = town.traffic.tracks;
    town.traffic.roles.forEach((role, a) => {
      const speeds: number[] = [];
      for (let t = 1; t < STEPS; t++) {
        const k = a * STEPS + t;
        speeds.push(Math.hypot(tr.x[k] - tr.x[k - 1], tr.y[k] - tr.y[k - 1]) / town.scenario.dtS);
      }
      if (role === 'parked') expect(Math.max(...speeds)).toBe(0);
      // Corners of the walking paths can add a short sidestep; the median is the walking pace.
      if (role === 'pedestrian') {
        speeds.sort((p, q) => p - q);
        expect(speeds[Math.floor(speeds.length / 2)]).toBeLessThan(2.2);
      }
    });
  });
});
