// Which logged walkers and cyclists touch another agent in the log (WOSAC's rounded boxes), with whom, from
// when and how fast they close; and in what share of rollouts each traffic agent reproduces a contact.
// Run: node --import tsx tools/report/walkerContacts.ts --scenarios <path>[,<path>…] [--agent learned]
// [--against idm] [--rollouts 16] [--seed 0]
import { InputError } from '../../core/errors.ts';
import { roundedBoxDistance } from '../../simulation/metrics/wosac/boxDistance.ts';
import { WOSAC_2025_CONFIG } from '../../simulation/metrics/wosac/config.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenariosAsync } from '../../simulation/scenarioSources.ts';
import { checkReportFlags, flagValue, isMain, numberFlag } from './reportFlags.ts';
import { agentTerms } from './wosacByAgentType.ts';

/** The first contact of a logged agent from the current step on, or null when it touches nobody. */
export interface LoggedContact {
  /** Steps after the current one (0: touching at the start). */
  step: number;
  /** The other agent's row. */
  partner: number;
  /** Speed at which the two close in at that step, m/s (their logged velocities). */
  closingMps: number;
}

/** Agent a's first contact in the log: the rounded-box distance of the collision term below zero. */
export function loggedContact(
  s: Scenario,
  a: number,
  factor = WOSAC_2025_CONFIG.cornerRoundingFactor,
): LoggedContact | null {
  const A = s.agents;
  const T = s.numSteps;
  const n = A.ids.length;
  for (let t = s.currentStep; t < T; t++) {
    const ka = a * T + t;
    if (!A.valid[ka]) continue;
    for (let b = 0; b < n; b++) {
      const kb = b * T + t;
      if (b === a || !A.valid[kb]) continue;
      const d = roundedBoxDistance(
        A.x[ka], A.y[ka], A.yaw[ka], A.length[a], A.width[a],
        A.x[kb], A.y[kb], A.yaw[kb], A.length[b], A.width[b],
        factor,
      ); // prettier-ignore
      if (d < 0)
        return {
          step: t - s.currentStep,
          partner: b,
          closingMps: Math.hypot(A.vx[ka] - A.vx[kb], A.vy[ka] - A.vy[kb]),
        };
    }
  }
  return null;
}

/** One logged contact of a walker or cyclist and the share of rollouts that reproduce one, per agent. */
export interface ContactRow {
  scenario: string;
  agent: number;
  group: string;
  partner: number;
  partnerType: string;
  contact: LoggedContact;
  /** Share of rollouts in which the simulated agent collides (with anyone), per traffic agent. */
  reproduced: Record<string, number>;
}

export function walkerContacts(
  scenarios: readonly Scenario[],
  agents: readonly string[],
  rollouts: number,
  seed: number,
): ContactRow[] {
  const terms = agents.map((name) => agentTerms(scenarios, name, rollouts, seed));
  const rows: ContactRow[] = [];
  for (const s of scenarios) {
    for (let a = 0; a < s.agents.ids.length; a++) {
      const key = `${s.id}/${s.agents.ids[a]}`;
      const first = terms[0].get(key);
      if (!first?.logCollided || !/^(pedestrian|cyclist)/.test(first.group)) continue;
      const contact = loggedContact(s, a);
      if (!contact) continue;
      rows.push({
        scenario: s.id,
        agent: s.agents.ids[a],
        group: first.group,
        partner: s.agents.ids[contact.partner],
        partnerType: s.agents.types[contact.partner],
        contact,
        reproduced: Object.fromEntries(
          agents.map((name, i) => [name, terms[i].get(key)?.simCollided ?? NaN]),
        ),
      });
    }
  }
  return rows;
}

export function markdownContacts(rows: readonly ContactRow[], agents: readonly string[]): string {
  const head =
    `| scenario | agent | group | partner | from step | closing (m/s) | ${agents.map((a) => `${a}: share reproduced`).join(' | ')} |\n` +
    `|---|---:|---|---|---:|---:|${agents.map(() => '---:').join('|')}|`;
  const body = rows.map(
    (r) =>
      `| ${r.scenario} | ${r.agent} | ${r.group} | ${r.partner} (${r.partnerType}) | ${r.contact.step} | ${r.contact.closingMps.toFixed(2)} | ${agents.map((a) => r.reproduced[a].toFixed(2)).join(' | ')} |`,
  );
  // A logged contact no rollout reproduces costs the collision term its floor.
  const never = agents.map((a) => `${a} ${rows.filter((r) => r.reproduced[a] === 0).length}`).join(', ');
  return [head, ...body, '', `logged contacts reproduced in no rollout: ${never} (of ${rows.length})`].join(
    '\n',
  );
}

if (isMain(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: node --import tsx tools/report/walkerContacts.ts --scenarios <path>[,<path>…] [--agent learned]\n' +
      '  [--against idm] [--rollouts 16] [--seed 0]',
    ['--scenarios', '--agent', '--against', '--rollouts', '--seed'],
  );
  const input = flagValue('--scenarios');
  if (!input) throw new InputError('--scenarios', 'is required (scenario files or folders, comma-separated)');
  const scenarios: Scenario[] = [];
  for (const p of input.split(',').filter(Boolean))
    for (const l of await loadScenariosAsync(p)) scenarios.push(l.scenario);
  const agents = [flagValue('--agent') ?? 'learned', flagValue('--against') ?? 'idm'];
  const rows = walkerContacts(scenarios, agents, numberFlag('--rollouts', 16), numberFlag('--seed', 0));
  console.log(markdownContacts(rows, agents));
  process.exit(0);
}
