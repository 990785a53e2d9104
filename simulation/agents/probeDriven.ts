// Classes a residual learned model leaves to its observation's IDM probe: their action is the zero
// correction, so they drive by the probe's acceleration and pure pursuit on their route (policyStep.ts).
import { InputError } from '../../core/errors.ts';
import type { ActionBins } from '../training/actionBins.ts';
import { TYPE_CODE } from '../env.ts';
import type { AgentType } from '../scenario.ts';

/** The classes the network may hand to the probe: the ones it drives (walkers and parked follow rules). */
const PROBE_DRIVABLE: readonly AgentType[] = ['vehicle', 'cyclist'];

/**
 * settings.probeDriven of a model's metadata: an array of agent classes, for models whose steering and
 * acceleration are both residual (the zero correction is the probe's action only there).
 */
export function checkedProbeDriven(file: string, v: unknown, bins: ActionBins): AgentType[] {
  if (!Array.isArray(v) || v.some((t) => !PROBE_DRIVABLE.includes(t as AgentType)))
    throw new InputError(
      file,
      `settings.probeDriven must be an array of ${PROBE_DRIVABLE.map((t) => `'${t}'`).join(' / ')}, got ${JSON.stringify(v)}`,
    );
  if (v.length > 0 && !(bins.residualSteering && bins.residualAccel))
    throw new InputError(file, 'settings.probeDriven needs residual steering and acceleration bins');
  return v as AgentType[];
}

/** Per TYPE_CODE, 1 where the class is probe-driven. */
export function probeDrivenMask(types: readonly AgentType[]): Uint8Array {
  const mask = new Uint8Array(Object.keys(TYPE_CODE).length);
  for (const t of types) mask[TYPE_CODE[t]] = 1;
  return mask;
}

/**
 * Replace the picked action of every probe-driven row of `rows` by the zero correction (in place);
 * `typeOfRow` gives a row's TYPE_CODE (the environment's, or the observation's own one-hot).
 */
export function keepProbeActions(
  typeOfRow: (q: number) => number,
  rows: number,
  action: Int32Array<ArrayBufferLike>,
  bins: ActionBins,
  mask: Uint8Array,
): void {
  const zero = bins.label(0, 0);
  for (let q = 0; q < rows; q++) if (mask[typeOfRow(q)] === 1) action[q] = zero;
}
