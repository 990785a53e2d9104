// The observation's IDM probe with leaders on the planned route (ObservationConfig.leaderOnRoute), or with
// conflicts measured in the plan point's frame (probePlanFrameExtents): the same layout, only the expert
// block changed (IDM's acceleration among it), and absent means off.
import { describe, expect, it } from 'vitest';
import { IDM_ACCEL_FEATURE } from '../../simulation/expertFeatures.ts';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { SimEnv } from '../../simulation/env.ts';
import { DEFAULT_OBSERVATION, observationOffsets, Observer } from '../../simulation/observation.ts';
import { generateTown } from '../../simulation/town/town.ts';

describe('observation with leaders on the route', () => {
  it.each([
    ['leaderOnRoute', 40],
    ['probePlanFrameExtents', 12],
  ] as const)(
    '%s keeps the layout, changes IDM’s acceleration for some agents of a town, and is off when absent',
    (option, steps) => {
      const town = generateTown({ seed: 3 }, 120);
      const env = new SimEnv([
        { ...town.scenario, controlled: new Uint8Array(town.scenario.agents.ids.length).fill(1) },
      ]);
      env.reset();
      const idm = new IdmPolicy();
      idm.reset(env);
      const agents = Int32Array.from({ length: env.n }, (_, g) => g);
      const cfgOf = (on?: boolean) => ({
        ...DEFAULT_OBSERVATION,
        ...(on === undefined ? {} : { [option]: on }),
      });
      const [plain, off, on] = [undefined, false, true].map((v) => new Observer(cfgOf(v)));
      const { expert, size } = observationOffsets(cfgOf(true));
      let changedAccel = 0;
      let changedElsewhere = 0;
      for (let t = 0; t < steps && !env.done; t++) {
        const a = plain.observe(env, agents).obs.slice();
        const b = off.observe(env, agents).obs.slice();
        const c = on.observe(env, agents).obs.slice();
        expect(b.length).toBe(a.length);
        expect(c.length).toBe(a.length);
        for (let k = 0; k < a.length; k++) {
          expect(b[k]).toBe(a[k]);
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
      expect(changedAccel).toBeGreaterThan(0);
      expect(changedElsewhere).toBe(0);
    },
  );
});
