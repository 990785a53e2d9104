// Every rule of GRAD_RULES has a finite-difference case in gradCases.ts: a case covers the ops its name
// starts with ('Add (broadcast)' → Add, 'Sin/Cos' → Sin and Cos), and its graph must contain them.
import { describe, expect, it } from 'vitest';
import { GRAD_RULES } from '../../../core/nn/gradients.ts';
import { Graph, type Tensor } from '../../../core/nn/graph.ts';
import { ParamStore } from '../../../core/nn/params.ts';
import { GRAD_CASES, type GradCase } from './gradCases.ts';

/** The ops a case names: the words before its first space or parenthesis, split at '/'. */
function namedOps(c: GradCase): string[] {
  return c.name.split(/[ (]/)[0].split('/');
}

/** Ops of the graph a case builds (as gradCheck builds it, without running it). */
function opsOf(c: GradCase): Set<string> {
  const dtype = c.float32 ? 'float32' : 'float64';
  const store = new ParamStore({ dtype });
  const g = new Graph({ floatType: dtype });
  const xs: Record<string, Tensor> = {};
  for (const [name, spec] of Object.entries(c.inputs))
    xs[name] = g.param(store.add(name, spec.shape, { kind: 'zeros' }));
  c.fn(g, xs);
  return new Set(g.nodes.map((n) => n.op));
}

describe('gradient-check coverage', () => {
  it('every rule in GRAD_RULES has a case named for it', () => {
    const covered = new Set(GRAD_CASES.flatMap(namedOps));
    const missing = Object.keys(GRAD_RULES).filter((op) => !covered.has(op));
    expect(missing, `rules with no gradient-check case in gradCases.ts: ${missing.join(', ')}`).toEqual([]);
  });

  it('every case named for a rule builds that op', () => {
    const wrong = GRAD_CASES.flatMap((c) => {
      const ops = opsOf(c);
      return namedOps(c)
        .filter((op) => op in GRAD_RULES && !ops.has(op))
        .map((op) => `'${c.name}' has no ${op} node`);
    });
    expect(wrong).toEqual([]);
  });
});
