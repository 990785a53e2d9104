// Forecast files: an Arrow IPC file with one record batch per (start frame, target frame), columns x, y, z
// (float32, vehicle frame of the start frame — the 4D-Occ reference frame) and the pair in the batch metadata.
import { Field, Float32, makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import { numericData, readNumeric } from '../core/arrow/columns.ts';
import { parseArrowFile, writeArrowFile } from '../core/arrow/ipc.ts';
import { InputError } from '../core/errors.ts';
import fs from 'node:fs';
import type { SensorPoints } from './voxelize.ts';

export const FORECAST_FILE_FORMAT = 'drivekit-forecast/1';

export interface ForecastRecord {
  startFrame: number;
  targetFrame: number;
  horizonS: number;
  /** 'truth' when rendered along the true future sweep's rays (in their order), else 'nominal'. */
  rays: 'truth' | 'nominal';
  points: SensorPoints;
}

const schemaOf = (meta: Record<string, string>) =>
  new Schema(
    ['x', 'y', 'z'].map((n) => new Field(n, new Float32(), false)),
    new Map(Object.entries({ format: FORECAST_FILE_FORMAT, ...meta })),
  );

export async function writeForecastFile(
  file: string,
  records: readonly ForecastRecord[],
  meta: Record<string, string> = {},
): Promise<void> {
  const schema = schemaOf(meta);
  const batches = records.map((r) => {
    const data = makeData({
      type: new Struct(schema.fields),
      length: r.points.x.length,
      children: [numericData(r.points.x), numericData(r.points.y), numericData(r.points.z)],
    });
    return new RecordBatch(
      schema,
      data,
      new Map([
        ['start_frame', String(r.startFrame)],
        ['target_frame', String(r.targetFrame)],
        ['horizon_s', String(r.horizonS)],
        ['rays', r.rays],
      ]),
    );
  });
  await writeArrowFile(file, batches, schema);
}

export function readForecastFile(file: string): { meta: Record<string, string>; records: ForecastRecord[] } {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such forecast file');
  const { schema, batches } = parseArrowFile(fs.readFileSync(file), file);
  const meta = Object.fromEntries(schema.metadata);
  if (meta.format !== FORECAST_FILE_FORMAT)
    throw new InputError(
      file,
      `not a drivekit forecast (format '${meta.format ?? ''}', expected ${FORECAST_FILE_FORMAT})`,
    );
  const records = batches.map((b, i) => {
    const m = b.metadata ?? new Map<string, string>();
    const num = (k: string) => {
      const v = Number(m.get(k));
      if (!m.has(k) || !Number.isFinite(v))
        throw new InputError(file, `record batch ${i} has no numeric '${k}' metadata`);
      return v;
    };
    return {
      startFrame: num('start_frame'),
      targetFrame: num('target_frame'),
      horizonS: num('horizon_s'),
      rays: (m.get('rays') === 'truth' ? 'truth' : 'nominal') as 'truth' | 'nominal',
      points: {
        x: readNumeric<Float32Array>(b, 'x'),
        y: readNumeric<Float32Array>(b, 'y'),
        z: readNumeric<Float32Array>(b, 'z'),
      },
    };
  });
  return { meta, records };
}
