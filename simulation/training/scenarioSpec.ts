// The scenarios of a train-agents run from a spec: `town:A-B` (synthetic town seeds, 91 steps), scenario
// files or folders (drivekit scenarios, WOMD TFRecords, AV2 logs), comma-separated; and long-tail kinds.
import { InputError } from '../../core/errors.ts';
import { generateLongtail, LONGTAIL_KINDS } from '../longtail/generate.ts';
import type { Scenario } from '../scenario.ts';
import { loadScenarios } from '../scenarioSources.ts';
import { generateTown } from '../town/town.ts';
import { controlAllPresent } from './evaluate.ts';

/** Town seeds of `town:A-B` or `town:A,B` parts. */
export function parseTownSeeds(spec: string, flag: string): number[] {
  const m = /^town:(\d+)(?:-(\d+))?$/.exec(spec);
  if (!m) throw new InputError(flag, `'${spec}' is not town:A or town:A-B`);
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (b < a) throw new InputError(flag, `'${spec}': the range ends before it starts`);
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

/**
 * Scenarios of a spec; every agent present at the current step is driven (the Sim Agents setting).
 * `onScenario` ticks as each one is loaded or generated (a long list of towns or real logs takes a while).
 */
export function scenariosFromSpec(spec: string, flag: string, onScenario?: () => void): Scenario[] {
  const out: Scenario[] = [];
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (part.startsWith('town:')) {
      for (const seed of parseTownSeeds(part, flag)) {
        out.push(generateTown({ seed }, 91).scenario);
        onScenario?.();
      }
    } else {
      for (const l of loadScenarios(part)) {
        out.push(l.scenario);
        onScenario?.();
      }
    }
  }
  if (!out.length) throw new InputError(flag, 'no scenarios');
  return controlAllPresent(out);
}

/** Long-tail scenarios of `kind[:count],…` (default 4 each), from `seed`; their own controlled flags. */
export function longtailFromSpec(spec: string, seed: number): Scenario[] {
  const out: Scenario[] = [];
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kind, n] = part.split(':');
    if (!Object.hasOwn(LONGTAIL_KINDS, kind))
      throw new InputError(
        '--longtail',
        `unknown kind '${kind}' (known: ${Object.keys(LONGTAIL_KINDS).join(', ')})`,
      );
    const count = n === undefined ? 4 : Number(n);
    if (!Number.isInteger(count) || count < 1)
      throw new InputError('--longtail', `'${part}': count must be a whole number ≥ 1`);
    for (const l of generateLongtail(kind, count, seed)) out.push(l.scenario);
  }
  return out;
}
