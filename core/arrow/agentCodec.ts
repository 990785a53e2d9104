// Arrow batches of the learned-agent stream stage (`drivekit stage agents`): observation rows in, one
// (acceleration, curvature) action per agent out, matched by agent id; the row layout is simulation/observation.ts's.
import type { RecordBatch } from 'apache-arrow';
import { batchFromColumns, fixedListData, numericData, readColumnAs, readFixedList } from './columns.ts';
import { schemaFor } from './schemas.ts';
import { SchemaError, validateSchema } from './validate.ts';

/** Observations of `agentId.length` agents, `size` floats each, row after row. */
export interface AgentObservations {
  agentId: Int32Array;
  size: number;
  obs: Float32Array;
}

/** One action per agent: the bin index and its bicycle controls. */
export interface AgentActions {
  agentId: Int32Array;
  action: Int32Array;
  accel: Float32Array;
  curvature: Float32Array;
}

export function observationsToBatch(
  o: AgentObservations,
  metadata: Record<string, string> = {},
): RecordBatch {
  if (o.obs.length !== o.agentId.length * o.size)
    throw new Error(`observationsToBatch: ${o.obs.length} floats for ${o.agentId.length} rows of ${o.size}`);
  const schema = schemaFor('agentObservations', { ...metadata, obs_size: String(o.size) });
  return batchFromColumns(schema, [numericData(o.agentId), fixedListData(o.obs, o.size)]);
}

export function batchToObservations(batch: RecordBatch, where = 'agent observations'): AgentObservations {
  validateSchema(batch.schema, 'agentObservations', where);
  const obs = readFixedList<Float32Array>(batch, 'obs');
  if (!(obs instanceof Float32Array)) throw new SchemaError(`${where}: column 'obs' is not float32`);
  const size = batch.numRows ? obs.length / batch.numRows : 0;
  return { agentId: readColumnAs(batch, 'agent_id', Int32Array), size, obs };
}

export function actionsToBatch(a: AgentActions, metadata: Record<string, string> = {}): RecordBatch {
  return batchFromColumns(schemaFor('agentActions', metadata), [
    numericData(a.agentId),
    numericData(a.action),
    numericData(a.accel),
    numericData(a.curvature),
  ]);
}

export function batchToActions(batch: RecordBatch, where = 'agent actions'): AgentActions {
  validateSchema(batch.schema, 'agentActions', where);
  return {
    agentId: readColumnAs(batch, 'agent_id', Int32Array),
    action: readColumnAs(batch, 'action', Int32Array),
    accel: readColumnAs(batch, 'accel', Float32Array, NaN),
    curvature: readColumnAs(batch, 'curvature', Float32Array, NaN),
  };
}
