// Named values in the Arrow files drivekit writes (issue 19 point 1): box label and class, scenario agent
// types and light states are dictionary-encoded names; boxes carry timestamp_ns beside frame_index.
import fs from 'node:fs';
import path from 'node:path';
import { DataType, type RecordBatch, tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { boxesFromRows } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { LogWriter, readBoxesFile } from '../../datasets/logstore.ts';
import { writeBoxesFile } from '../../datasets/logFiles.ts';
import { LIGHT, NO_SIGNAL_STATE } from '../../simulation/scenario.ts';
import { loadScenario, saveScenario } from '../../simulation/scenarioIo.ts';
import { straightRoadScenario } from '../simulation/fixtures.ts';
import { buildExportTables } from '../../simulation/export/exportTables.ts';
import { writeParquetTables } from '../../simulation/export/parquetExport.ts';
import { parquetReadObjects } from 'hyparquet';
import { tmpDir } from '../datasets/tmp.ts';

/** The batch of an Arrow file as another reader sees it (apache-arrow's own IPC reader). */
function readBatch(file: string): RecordBatch {
  return tableFromIPC(fs.readFileSync(file)).batches[0];
}

describe('named values', () => {
  it('boxes in a log: label and class dictionary-encoded, timestamp_ns from the frame', async () => {
    const dir = path.join(tmpDir(), 'log');
    const w = LogWriter.create(dir, { source: 'test' });
    for (let i = 0; i < 3; i++)
      w.appendFrame({
        timestampNs: 1_000_000_000n + BigInt(i) * 100_000_000n,
        pose: poseFromTranslationYaw(i, 0, 0, 0),
        points: allocatePointCloud(1),
      });
    const box = { cx: 1, cy: 1, cz: 1, length: 4, width: 2, height: 1.5, yaw: 0 };
    const labels = boxesFromRows([
      { ...box, frameIndex: 2, label: 'Car' },
      { ...box, frameIndex: 0, label: 'Pedestrian' },
      { ...box, frameIndex: 2, label: 'Car' },
    ]);
    w.setLabels(labels);
    await w.close();
    const b = readBatch(path.join(dir, 'labels.arrow'));
    for (const name of ['label', 'class']) expect(DataType.isDictionary(b.getChild(name)!.type)).toBe(true);
    expect(b.getChild('label')!.toArray()).toEqual(['Car', 'Pedestrian', 'Car']);
    expect(b.getChild('class')!.toArray()).toEqual(['car', 'pedestrian', 'car']);
    expect(Array.from(b.getChild('timestamp_ns')!.toArray() as BigInt64Array)).toEqual([
      1_200_000_000n,
      1_000_000_000n,
      1_200_000_000n,
    ]);
    expect(readBoxesFile(path.join(dir, 'labels.arrow')).label).toEqual(['Car', 'Pedestrian', 'Car']);
    // Outside a log there is no frame time: null, not a made-up value.
    const loose = path.join(tmpDir(), 'loose.arrow');
    await writeBoxesFile(loose, labels);
    expect(readBatch(loose).getChild('timestamp_ns')!.nullCount).toBe(3);
  });

  it('scenario light states and agent types as names; the source state kept distinct, null where unlisted', async () => {
    const s = straightRoadScenario();
    const T = s.numSteps;
    const signal = new Uint8Array(T).fill(1); // arrow_stop
    signal[0] = NO_SIGNAL_STATE;
    s.map.trafficLights.push({
      laneId: s.map.lanes[0].id,
      stopX: 50,
      stopY: 0,
      states: new Uint8Array(T).fill(LIGHT.red),
      signalStates: signal,
    });
    const k = s.map.trafficLights.length - 1;
    const dir = path.join(tmpDir(), 'scenario');
    saveScenario(s, dir);
    const lights = readBatch(path.join(dir, 'traffic_lights.arrow'));
    const states = lights.getChild('states')!.get(k)!;
    expect(DataType.isDictionary(states.type)).toBe(true);
    expect(states.get(3)).toBe('red');
    const src = lights.getChild('signal_states')!.get(k)!;
    expect([src.get(0), src.get(1)]).toEqual([null, 'arrow_stop']);
    const info = readBatch(path.join(dir, 'agent_info.arrow'));
    expect(DataType.isDictionary(info.getChild('type')!.type)).toBe(true);
    expect(info.getChild('type')!.get(0)).toBe(s.agents.types[0]);
    // The per-step table names the type the same way (one encoding for agent types in a directory).
    const perStep = readBatch(path.join(dir, 'agents.arrow'));
    expect(DataType.isDictionary(perStep.getChild('type')!.type)).toBe(true);
    expect(perStep.getChild('type')!.get(0)).toBe(s.agents.types[0]);
    const back = loadScenario(dir);
    expect(Array.from(back.map.trafficLights[k].signalStates!)).toEqual(Array.from(signal));
    expect(Array.from(back.map.trafficLights[k].states)).toEqual(
      Array.from(new Uint8Array(T).fill(LIGHT.red)),
    );
    expect(back.agents.types).toEqual(s.agents.types);
    // The rollouts' Parquet export names them too.
    const pq = path.join(tmpDir(), 'pq');
    fs.mkdirSync(pq);
    const [file] = writeParquetTables(buildExportTables([{ scenario: s, rollouts: [s.agents] }]), pq).filter(
      (f) => f.endsWith('traffic_lights.parquet'),
    );
    const buf = fs.readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const rows = (await parquetReadObjects({ file: ab })) as {
      lane_id: number;
      state: string;
      source_state: string | null;
    }[];
    const mine = rows.filter((r) => r.lane_id === s.map.lanes[0].id && r.source_state !== undefined);
    expect(mine.slice(-T).map((r) => r.state)).toEqual(new Array(T).fill('red'));
    expect(
      mine
        .slice(-T)
        .slice(0, 2)
        .map((r) => r.source_state),
    ).toEqual([null, 'arrow_stop']);
  });
});
