// Synthetic town generation: milliseconds per town (road network, static world and 17 s of traffic, the
// log of every tool that trains or scores on towns), and how it grows with the traffic on the same streets.
import { generateTown } from '../../simulation/town/town.ts';
import { DEFAULT_TOWN } from '../../simulation/town/townConfig.ts';
import { type Benchmark, type Figure, timeRuns } from './benchmark.ts';
import { median } from '../../core/stats.ts';

/** Settings: the default town's seeds, its 91-step log, and traffic scaled 1×, 2×, 4× for the growth. */
export const TOWN_BENCH = {
  seeds: [1, 2, 3, 4, 5],
  numSteps: 91,
  repsPerSeed: 2,
  trafficScales: [1, 2, 4],
};

function trafficOf(scale: number) {
  const t = DEFAULT_TOWN;
  return {
    cars: t.cars * scale,
    vans: t.vans * scale,
    trucks: t.trucks * scale,
    cyclists: t.cyclists * scale,
    pedestrians: t.pedestrians * scale,
  };
}

async function townGenerate(): Promise<Figure[]> {
  const { seeds, numSteps, repsPerSeed } = TOWN_BENCH;
  const perScale: { ms: number; agents: number }[] = [];
  for (const scale of TOWN_BENCH.trafficScales) {
    const ms: number[] = [];
    let agents = 0;
    for (const seed of seeds) {
      const over = { seed, ...trafficOf(scale) };
      // The untimed first run warms up and counts the agents.
      agents += generateTown(over, numSteps).scenario.agents.ids.length;
      ms.push(...(await timeRuns(() => generateTown(over, numSteps), repsPerSeed, 0)));
    }
    perScale.push({ ms: median(ms), agents: agents / seeds.length });
  }
  const base = perScale[0];
  const round = (v: number, d = 1) => +v.toFixed(d);
  return [
    {
      name: 'town_generate',
      ms_per_town_median: round(base.ms),
      agents_per_town: round(base.agents),
      steps: numSteps,
      seeds: seeds.length,
    },
    {
      name: 'town_generate_scaling',
      traffic_scale: TOWN_BENCH.trafficScales,
      agents_per_town: perScale.map((p) => round(p.agents)),
      ms_per_town_median: perScale.map((p) => round(p.ms)),
      // Cost over agents relative to 1×: 1 when linear in agents, the agent ratio when quadratic.
      cost_per_agent_vs_1x: perScale.map((p) => round(p.ms / p.agents / (base.ms / base.agents), 2)),
    },
  ];
}

export const benchmarks: Benchmark[] = [
  {
    names: ['town_generate', 'town_generate_scaling'],
    async run(emit) {
      for (const f of await townGenerate()) emit(f);
    },
  },
];
