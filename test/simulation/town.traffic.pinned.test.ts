// Pins the town traffic and the IDM agent bit for bit: hashes of a seeded town's traffic and of IDM rollouts on it,
// against hashes taken from the single-function simulateTraffic and IdmPolicy before they were split into modules.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import { generateTown } from '../../simulation/town/town.ts';
import type { AgentTracks } from '../../simulation/scenario.ts';

// Why this test exists: the traffic simulator and the IDM agent were refactored (issue 20, point 3) with the
// promise "same seed → same logs and same rollouts". Synthetic logs, their labels and every benchmark figure
// derived from them depend on these exact trajectories, so any change, however small, must be deliberate: a
// behaviour change updates these hashes in its own commit and says why.
const STEPS = 200;

function hashTracks(h: ReturnType<typeof createHash>, t: AgentTracks): void {
  h.update(JSON.stringify(t.types));
  for (const a of [t.ids, t.length, t.width, t.height, t.x, t.y, t.z, t.yaw, t.vx, t.vy, t.valid])
    h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}

function trafficHash(seed: number): { traffic: string; idm: string } {
  const town = generateTown({ seed }, STEPS);
  const tr = town.traffic;
  const h = createHash('sha256');
  hashTracks(h, tr.tracks);
  h.update(JSON.stringify([tr.classes, tr.roles, [...tr.paint], tr.egoIndex, tr.egoRoute]));
  h.update(
    JSON.stringify([tr.refusedMoves, tr.laneChanges, tr.junctionHolds, tr.crossings, tr.leakedReservations]),
  );
  // Every agent present at the current step driven by IDM: pins lane following, lane changes and yielding.
  const scenario = { ...town.scenario, controlled: new Uint8Array(tr.tracks.ids.length).fill(1) };
  const [rollout] = rolloutScenarios([scenario], () => new IdmPolicy());
  const g = createHash('sha256');
  hashTracks(g, rollout.tracks);
  return { traffic: h.digest('hex'), idm: g.digest('hex') };
}

describe('town traffic and IDM rollouts are pinned', () => {
  it.each([
    [
      3,
      '5a2b518c03c8d1d75d98613876e681d0efab73993f153576fc773645dcff5e43',
      'b41e8469926a1c737b5414f73e2dc53d62bc365cad733c0ee83c5d604d398e77',
    ],
    [
      7,
      'eeb0bb821eac303ff72e465b21d160d4074f3806c326f718a337b39c36513663',
      '0dfec5d9ce32463674aef649f0cef77a22b9236950f18ee3dd8c9eb3531c1b33',
    ],
  ])('seed %i gives the recorded traffic and IDM rollout', (seed, traffic, idm) => {
    expect(trafficHash(seed)).toEqual({ traffic, idm });
  });
});
