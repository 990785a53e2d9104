import { describe, expect, it } from 'vitest';
import { WOSAC_COMPONENTS, type WosacComponent } from '../../../simulation/metrics/wosac/config.ts';
import {
  type AgentTerms,
  compareByGroup,
  markdownGroupRows,
} from '../../../tools/report/wosacByAgentType.ts';

const terms = (group: string, speedSum: number, speedTerms: number): AgentTerms => {
  const zero = () =>
    Object.fromEntries(WOSAC_COMPONENTS.map((c) => [c, 0])) as Record<WosacComponent, number>;
  const sum = zero();
  const n = zero();
  sum.linearSpeed = speedSum;
  n.linearSpeed = speedTerms;
  return { group, sum, terms: n, logCollided: false, simCollided: 0 };
};

describe('WOSAC by agent type', () => {
  it('averages the difference per term within each group, over agents both runs scored', () => {
    const a = new Map([
      ['s/1', terms('vehicle, moving', -10, 10)],
      ['s/2', terms('vehicle, moving', -30, 10)],
      ['s/3', terms('pedestrian, moving', -5, 5)],
      ['s/4', terms('pedestrian, moving', -99, 5)], // not scored in the other run: left out
    ]);
    const b = new Map([
      ['s/1', terms('vehicle, moving', -20, 10)],
      ['s/2', terms('vehicle, moving', -20, 10)],
      ['s/3', terms('pedestrian, moving', -10, 5)],
    ]);
    const rows = compareByGroup(a, b);
    expect(rows.map((r) => [r.group, r.agents])).toEqual([
      ['pedestrian, moving', 1],
      ['vehicle, moving', 2],
    ]);
    expect(rows[0].perTerm.linearSpeed).toBeCloseTo(1, 12); // +5 nats over 5 terms
    expect(rows[1].perTerm.linearSpeed).toBeCloseTo(0, 12); // +10 and −10 over 20 terms
    expect(Number.isNaN(rows[1].perTerm.collisionIndication)).toBe(true); // no terms
    expect(markdownGroupRows(rows)).toContain('| vehicle, moving | 2 | 0.000 |');
  });
});
