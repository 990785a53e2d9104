// Rollouts exported as MCAP (`drivekit export --rollouts … --format mcap`): one file per scenario rollout,
// read back with @mcap/core: the map once, every step's agents as cubes at their simulated positions, ego tf.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McapIndexedReader } from '@mcap/core';
import { afterAll, describe, expect, it } from 'vitest';
import { SYNTHETIC_EPOCH_NS } from '../../core/foxglove/mcapClock.ts';
import { decodeFoxglove } from '../../core/foxglove/schemas.ts';
import { lz4FrameDecompress } from '../../datasets/codecs/lz4.ts';
import { readRolloutSet } from '../../simulation/export/rolloutSet.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { runExport } from '../../tools/commands/export.ts';
import { runSim } from '../../tools/commands/sim.ts';
import { straightRoadScenario } from './fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcap-export-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const bytesReadable = (b: Uint8Array) => ({
  size: async () => BigInt(b.length),
  read: async (offset: bigint, size: bigint) => b.subarray(Number(offset), Number(offset + size)),
});

describe('rollouts as MCAP', () => {
  it('writes one file per rollout with /map, /agents and /tf that decode to the simulated states', async () => {
    const s = straightRoadScenario({ numAgents: 3, numSteps: 21 });
    s.id = 'road';
    const file = path.join(tmp, 'road.json');
    saveScenario(s, file);
    const simOut = path.join(tmp, 'sim');
    await runSim({ scenarios: file, agents: 'cv', out: simOut, rollouts: 2, seed: 3, json: true });
    const out = path.join(tmp, 'mcap');
    const r = await runExport({ rollouts: simOut, format: 'mcap', out, json: true });
    expect(r.files.map((f) => path.basename(f))).toEqual(['0000-road.r0.mcap', '0001-road.r1.mcap']);

    const sims = readRolloutSet(simOut);
    const sim = sims[1];
    const reader = await McapIndexedReader.Initialize({
      readable: bytesReadable(fs.readFileSync(r.files[1])),
      decompressHandlers: { lz4: (b: Uint8Array) => lz4FrameDecompress(b) },
    });
    expect(reader.chunkIndexes.every((c) => c.compression === 'lz4')).toBe(true);
    expect(reader.channelsById.get([...reader.channelsById.keys()][0])!.metadata.get('rollout')).toBe('1');
    const topics = new Map([...reader.channelsById.values()].map((c) => [c.topic, c]));
    expect([...topics.keys()].sort()).toEqual(['/agents', '/map', '/tf', '/traffic_lights']);
    const count = (t: string) => Number(reader.statistics!.channelMessageCounts.get(topics.get(t)!.id));
    expect(count('/map')).toBe(1);
    expect(count('/agents')).toBe(sim.numSteps);
    expect(count('/tf')).toBe(sim.numSteps); // the ego is valid at every step here
    expect(count('/traffic_lights')).toBe(sim.numSteps);

    const map = [];
    for await (const m of reader.readMessages({ topics: ['/map'] }))
      map.push(decodeFoxglove('foxglove.SceneUpdate', m.data));
    const lines = (map[0].entities as { lines: { points: { x: number; y?: number }[] }[] }[])[0].lines;
    const m = s.map;
    const features = [m.roadEdges, m.roadLines ?? [], m.crosswalks, m.stopLines];
    expect(lines).toHaveLength(m.lanes.length + features.reduce((n, f) => n + f.length, 0));
    expect(lines[1].points.map((p) => [p.x, p.y])).toEqual([
      [0, 3.5],
      [100, 3.5],
      [200, 3.5],
    ]);

    // Step 15's cubes sit where rollout 1 put each agent.
    const T = sim.numSteps;
    const t = 15;
    let step = 0;
    for await (const m of reader.readMessages({ topics: ['/agents'] })) {
      if (step++ !== t) continue;
      // Step × dt from the fixed epoch (2000-01-01): Foxglove shows a date, not 1970.
      expect(m.logTime).toBe(SYNTHETIC_EPOCH_NS + BigInt(Math.round(t * sim.dtS * 1e9)));
      const u = decodeFoxglove('foxglove.SceneUpdate', m.data) as {
        entities: { id: string; cubes: { pose: { position: { x: number; y?: number } } }[] }[];
      };
      const ids = Array.from(sim.agents.ids).filter((_, i) => sim.agents.valid[i * T + t]);
      expect(u.entities.map((e) => e.id)).toEqual(ids.map((id) => `agent ${id}`));
      u.entities.forEach((e, k) => {
        const i = Array.from(sim.agents.ids).indexOf(ids[k]);
        expect(e.cubes[0].pose.position.x).toBeCloseTo(sim.agents.x[i * T + t], 4);
        expect(e.cubes[0].pose.position.y ?? 0).toBeCloseTo(sim.agents.y[i * T + t], 4);
      });
    }
    expect(step).toBe(T);
  });
});
