// The observation's IDM probe with leaders on the planned route (ObservationConfig.leaderOnRoute), with
// conflicts measured in the plan point's frame (probePlanFrameExtents) or yields within a shorter horizon
// (probeYieldHorizonS): the same layout, only the expert block changed (IDM's acceleration among it), and
// absent means IDM's own setting.
import { describe, expect, it } from 'vitest';
import { IDM_ACCEL_FEATURE } from '../../simulation/expertFeatures.ts';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { SimEnv } from '../../simulation/env.ts';
import { DEFAULT_OBSERVATION, observationOffsets, Observer } from '../../simulation/observation.ts';
import { generateTown } from '../../simulation/town/town.ts';

describe('observation with leaders on the route', () => {
  // Option, steps run, its value under test, and the value that absent stands for.
  it.each([
    ['leaderOnRoute', 40, true, false],
    ['probePlanFrameExtents', 12, true, false],
    ['probeYieldHorizonS', 40, 1.5, 3],
  ] as const)(
    '%s keeps the layout, changes IDM’s acceleration for some agents of a town, and is IDM’s own when absent',
    (option, steps, value, absent) => {
      const town = generateTown({ seed: 3 }, 120);
      const env = new SimEnv([
        { ...town.scenario, controlled: new Uint8Array(town.scenario.agents.ids.length).fill(1) },
      ]);
      env.reset();
      const idm = new IdmPolicy();
      idm.reset(env);
      const agents = Int32Array.from({ length: env.n }, (_, g) => g);
      const cfgOf = (v?: boolean | number) => ({
        ...DEFAULT_OBSERVATION,
        ...(v === undefined ? {} : { [option]: v }),
      });
      const [plain, off, on] = [undefined, absent, value].map((v) => new Observer(cfgOf(v)));
      const { expert, size } = observationOffsets(cfgOf(value));
      let changedAccel = 0;
      let changedElsewhere = 0;
      // The first value where "absent" and the explicit default differ (one expect per step: millions of
      // expect calls made this test take a minute).
      let offDiffers: string | null = null;
      for (let t = 0; t < steps && !env.done; t++) {
        const a = plain.observe(env, agents).obs.slice();
        const b = off.observe(env, agents).obs.slice();
        const c = on.observe(env, agents).obs.slice();
        expect(b.length).toBe(a.length);
        expect(c.length).toBe(a.length);
        for (let k = 0; k < a.length; k++) {
          if (offDiffers === null && !Object.is(b[k], a[k]))
            offDiffers = `step ${t}, value ${k}: ${b[k]} vs ${a[k]}`;
          if (c[k] === a[k]) continue;
          const f = k % size;
          if (f === expert + IDM_ACCEL_FEATURE) changedAccel++;
          if (f < expert) changedElsewhere++;
        }
        idm.act(env);
        env.step();
      }
      // Only the expert block moves (IDM's terms, and the lanes its probe keeps after lane changes it now makes
      // or skips); what the agent sees of others and of the map does not.
      expect(offDiffers).toBeNull();
      expect(changedAccel).toBeGreaterThan(0);
      expect(changedElsewhere).toBe(0);
    },
  );
});
