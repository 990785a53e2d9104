// Fit a scenario to the batch's step (the Sim Agents metric runs at 0.1 s): a logged step within a
// stated tolerance of it is taken as it (timestamps jitter by < 1 %); any other step is resampled onto
// the batch's grid by linear interpolation (headings along the shorter arc); each change is reported.
import type { Scenario } from '../scenario.ts';

export interface StepPolicy {
  /** The batch's step, seconds (WOMD's and the Sim Agents metric's 0.1 s). */
  dtS: number;
  /** A scenario whose mean step is within this fraction of dtS is taken as stepping at dtS. */
  tolerance: number;
}

export const DEFAULT_STEP_POLICY: StepPolicy = { dtS: 0.1, tolerance: 0.01 };

export interface ConformResult {
  scenario: Scenario;
  /** What was done (absent: nothing). */
  note?: string;
}

const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));

/** Resample a scenario onto steps of `dtS` over the same span (validity: both neighbours valid). */
export function resampleScenario(s: Scenario, dtS: number): Scenario {
  const T = s.numSteps;
  const span = (T - 1) * s.dtS;
  const U = Math.floor(span / dtS + 1e-6) + 1;
  const n = s.agents.ids.length;
  const a = s.agents;
  const f32 = () => new Float32Array(n * U);
  const out = {
    x: f32(),
    y: f32(),
    z: f32(),
    yaw: f32(),
    vx: f32(),
    vy: f32(),
    valid: new Uint8Array(n * U),
  };
  for (let i = 0; i < n; i++)
    for (let u = 0; u < U; u++) {
      const q = (u * dtS) / s.dtS;
      const t0 = Math.min(T - 1, Math.floor(q + 1e-9));
      const t1 = Math.min(T - 1, t0 + 1);
      const w = t1 > t0 ? q - t0 : 0;
      const k0 = i * T + t0;
      const k1 = i * T + t1;
      const k = i * U + u;
      const near = w < 1e-6 ? k0 : w > 1 - 1e-6 ? k1 : -1;
      if (near >= 0 ? !a.valid[near] : !(a.valid[k0] && a.valid[k1])) continue;
      const lerp = (v: Float32Array) => v[k0] + (v[k1] - v[k0]) * w;
      out.x[k] = lerp(a.x);
      out.y[k] = lerp(a.y);
      out.z[k] = lerp(a.z);
      out.vx[k] = lerp(a.vx);
      out.vy[k] = lerp(a.vy);
      out.yaw[k] = wrap(a.yaw[k0] + wrap(a.yaw[k1] - a.yaw[k0]) * w);
      out.valid[k] = 1;
    }
  const stepOf = (u: number) => Math.min(T - 1, Math.round((u * dtS) / s.dtS));
  const map = {
    ...s.map,
    trafficLights: s.map.trafficLights.map((l) => ({
      ...l,
      states: Uint8Array.from({ length: U }, (_, u) => l.states[stepOf(u)]),
      ...(l.signalStates
        ? { signalStates: Uint8Array.from({ length: U }, (_, u) => l.signalStates![stepOf(u)]) }
        : {}),
    })),
  };
  const agents = { ...a, ...out };
  delete agents.stepLength;
  delete agents.stepWidth;
  delete agents.stepHeight;
  return {
    ...s,
    dtS,
    numSteps: U,
    currentStep: Math.min(U - 1, Math.round((s.currentStep * s.dtS) / dtS)),
    agents,
    map,
    timestampsS: Float64Array.from({ length: U }, (_, u) => (s.timestampsS?.[0] ?? 0) + u * dtS),
  };
}

/** The scenario fitted to the policy's step, with a note of what was done (none when it already fits). */
export function conformStep(s: Scenario, policy: StepPolicy = DEFAULT_STEP_POLICY): ConformResult {
  if (s.dtS === policy.dtS) return { scenario: s };
  const rel = Math.abs(s.dtS - policy.dtS) / policy.dtS;
  if (rel <= policy.tolerance)
    return {
      scenario: { ...s, dtS: policy.dtS },
      note: `scenario ${s.id}: dt ${s.dtS} s taken as ${policy.dtS} s (within ${policy.tolerance * 100} %)`,
    };
  const r = resampleScenario(s, policy.dtS);
  return {
    scenario: r,
    note: `scenario ${s.id}: dt ${s.dtS} s resampled to ${policy.dtS} s (${s.numSteps} → ${r.numSteps} steps)`,
  };
}
