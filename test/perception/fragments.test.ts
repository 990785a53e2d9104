// Line-of-sight fragments: the bumper and the rear window of a car seen from behind become one cluster;
// objects side by side, or far behind one another, stay apart.
import { describe, expect, it } from 'vitest';
import type { ClusterResult } from '../../perception/cluster.ts';
import { mergeLineOfSightFragments } from '../../perception/fragments.ts';

/** Points on vertical panels across the line of sight at (range, azimuth centre, half width), one label each. */
function panels(specs: { range: number; az: number; halfWidth: number }[]) {
  const x: number[] = [];
  const y: number[] = [];
  const z: number[] = [];
  const labels: number[] = [];
  specs.forEach((s, k) => {
    for (let i = 0; i <= 20; i++) {
      const lateral = -s.halfWidth + (2 * s.halfWidth * i) / 20;
      const c = Math.cos(s.az);
      const sn = Math.sin(s.az);
      x.push(s.range * c - lateral * sn);
      y.push(s.range * sn + lateral * c);
      z.push(0.5);
      labels.push(k);
    }
  });
  const clusters: ClusterResult = { labels: Int32Array.from(labels), count: specs.length };
  return { pts: { x: Float32Array.from(x), y: Float32Array.from(y), z: Float32Array.from(z) }, clusters };
}

describe('line-of-sight fragments', () => {
  it('merges two parts of one object seen one behind the other', () => {
    const { pts, clusters } = panels([
      { range: 21.2, az: 0, halfWidth: 0.8 }, // bumper
      { range: 22.3, az: 0.005, halfWidth: 0.7 }, // rear window, 1.1 m further
      { range: 15, az: Math.PI - 0.01, halfWidth: 0.8 }, // another car behind the ego, across ±π
      { range: 16, az: -Math.PI + 0.01, halfWidth: 0.8 },
    ]);
    const r = mergeLineOfSightFragments(pts, clusters);
    expect(r.count).toBe(2);
    expect(r.labels[0]).toBe(r.labels[21]);
    expect(r.labels[42]).toBe(r.labels[63]);
    expect(r.labels[0]).not.toBe(r.labels[42]);
  });

  it('keeps side-by-side objects, objects far behind one another, and everything when disabled', () => {
    const { pts, clusters } = panels([
      { range: 10, az: 0, halfWidth: 0.3 }, // a pedestrian
      { range: 10, az: 0.1, halfWidth: 0.3 }, // another, 1 m to the side
      { range: 14, az: 0, halfWidth: 0.8 }, // a car 4 m behind the first
      { range: 30, az: 0.3, halfWidth: 4 }, // wide: a merge would exceed a vehicle's size
      { range: 31, az: 0.3, halfWidth: 4 },
    ]);
    expect(mergeLineOfSightFragments(pts, clusters).count).toBe(5);
    const two = panels([
      { range: 21.2, az: 0, halfWidth: 0.8 },
      { range: 22.3, az: 0, halfWidth: 0.7 },
    ]);
    expect(mergeLineOfSightFragments(two.pts, two.clusters, { enabled: false }).count).toBe(2);
  });

  it('leaves narrow objects one behind the other apart (people on a sidewalk) unless any width may merge', () => {
    const { pts, clusters } = panels([
      { range: 10, az: 0, halfWidth: 0.25 }, // a pedestrian
      { range: 10.8, az: 0.01, halfWidth: 0.3 }, // another 0.8 m behind, in the same line of sight
    ]);
    expect(mergeLineOfSightFragments(pts, clusters).count).toBe(2);
    expect(mergeLineOfSightFragments(pts, clusters, { minAcrossM: 0 }).count).toBe(1);
  });
});
