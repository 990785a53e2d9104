// Demo step: closed-loop simulation — replay, constant-velocity and IDM agents on the real Waymo
// scenario, a synthetic town and the AV2 log's tracks (metric tables and the Sim Agents realism table),
// the long-tail set with the collision rate of each agent per kind, the learned agents' table, and exports.
import fs from 'node:fs';
import path from 'node:path';
import { realData } from '../../core/paths.ts';
import { createProgress } from '../../core/progress.ts';
import { AGENTS } from '../../simulation/agents/registry.ts';
import { meanMetrics, type ScenarioMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenarios } from '../../simulation/scenarioSources.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { SHIPPED_INTENTION_MODEL } from '../../simulation/intention/intentionMode.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { runExport } from '../commands/export.ts';
import { formatLongtailTable, runLongtailKind } from '../commands/longtail.ts';
import { runSim } from '../commands/sim.ts';
import { markdownMetricTable } from '../report/simMetrics.ts';
import { resultRows, resultSets } from '../report/wosacResults.ts';
import { markdownWosacTable } from '../report/wosacTable.ts';
import { SHIPPED_ROW, agentsTable, markdownAgentsTable } from '../report/agentsTable.ts';
import { LONGTAIL_KINDS } from '../../simulation/longtail/generate.ts';
import type { DemoStep } from './context.ts';
import { makeDirs } from '../../core/dirs.ts';

/** Every built-in agent on the scenarios: one table row per agent (means over the scenarios). */
function agentTable(
  title: string,
  scenarios: Scenario[],
): { body: string; rows: Record<string, ScenarioMetrics> } {
  const rows: Record<string, ScenarioMetrics> = {};
  for (const [name, make] of Object.entries(AGENTS)) {
    const r = rolloutScenarios(scenarios, make);
    rows[name] = { ...meanMetrics(r.map((x) => x.metrics)), scenario: name };
  }
  const log = rows.replay;
  const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
  const body =
    `${title}: ${scenarios.length} scenario(s), ${log.agents} evaluated agents per scenario; the log itself has ` +
    `collision ${fmt(log.log_collision_rate)}, off-road ${fmt(log.log_offroad_rate)}.\n\n` +
    markdownMetricTable(Object.values(rows), undefined, 'agent');
  return { body, rows };
}

/**
 * Junction intentions on the town: seeded IDM rollouts, its goal-less agents straightest at every fork or on
 * routes sampled per rollout from the shipped head (docs/intentions.md), with the head's held-out scores.
 */
async function intentionSection(town: Scenario, out: string, quick: boolean): Promise<string> {
  const dir = path.join(out, 'intentions');
  saveScenario(town, path.join(dir, 'town'));
  const rollouts = quick ? 2 : 8;
  const meta = (mode: string) =>
    runSim({
      scenarios: path.join(dir, 'town'),
      agents: 'idm',
      out: path.join(dir, mode),
      rollouts,
      seed: 0,
      intentions: mode,
      force: true,
      json: true,
    }).then((r) => (r.wosac as { meta_metric: number }).meta_metric);
  const straight = await meta('straightest');
  const head = await meta('head');
  const info = JSON.parse(fs.readFileSync(SHIPPED_INTENTION_MODEL.replace(/\.onnx$/, '.json'), 'utf8')) as {
    heldOut: { name: string; model: { nll: number }; turnPrior: { nll: number }; uniform: { nll: number } }[];
  };
  const held = info.heldOut
    .map(
      (h) =>
        `${h.name}: head ${h.model.nll.toFixed(3)}, turn prior ${h.turnPrior.nll.toFixed(3)}, uniform ${h.uniform.nll.toFixed(3)}`,
    )
    .join('; ');
  return (
    `Junction intentions (docs/intentions.md), seeded IDM rollouts on the town, N = ${rollouts}: WOSAC meta ` +
    `${straight.toFixed(3)} with every goal-less agent straightest at forks, ${head.toFixed(3)} with routes sampled per rollout ` +
    `from models/intention.onnx. The head's held-out NLL per fork (nats): ${held}.`
  );
}

export const simulate: DemoStep = {
  name: 'simulate',
  async run(ctx) {
    const out = path.join(ctx.outDir, 'simulation');
    makeDirs(out);
    const sections: string[] = [];
    const bar = createProgress('simulate', 6);
    // 1. The real Waymo Open Motion scenario.
    const womdFile = realData('womd', 'motion_data_one_scenario.tfrecord');
    if (fs.existsSync(womdFile)) {
      const womd = loadScenarios(womdFile).map((l) => l.scenario);
      const t = agentTable(
        'Waymo Open Motion scenario (all agents valid at the current step simulated, 8 s)',
        womd,
      );
      sections.push(t.body);
      ctx.figures['womd idm collision rate'] = +t.rows.idm.collision_rate.toFixed(3);
      // A sim run on disk, exported to Parquet and WOMD; the WOMD export re-imports.
      const simDir = path.join(out, 'womd-idm');
      await runSim({ scenarios: womdFile, agents: 'idm', out: simDir, rollouts: 1, json: true });
      const pq = await runExport({ rollouts: simDir, format: 'parquet' });
      const tf = await runExport({ rollouts: simDir, format: 'womd' });
      const back = loadScenarios(tf.files[0]);
      sections.push(
        `Exports of the IDM rollout: ${pq.files.length} Parquet tables in ${path.dirname(pq.files[0])}; WOMD TFRecord ${tf.files[0]} re-imports as ${back.length} scenario with ${back[0].scenario.agents.ids.length} tracks × ${back[0].scenario.numSteps} steps.`,
      );
      // 32 seeded IDM rollouts as a Sim Agents challenge submission file.
      const subDir = path.join(out, 'womd-idm-32');
      await runSim({ scenarios: womdFile, agents: 'idm', out: subDir, rollouts: 32, seed: 0, json: true });
      const sub = await runExport({ rollouts: subDir, format: 'wosac', json: true });
      sections.push(
        `32 seeded IDM rollouts as a Waymo Sim Agents submission (SimAgentsChallengeSubmission, 80 steps at 10 Hz): ${sub.files[0]} (${(fs.statSync(sub.files[0]).size / 1e6).toFixed(1)} MB).`,
      );
    } else sections.push(`Waymo scenario skipped: ${womdFile} not found.`);
    bar.tick();
    // 2. A synthetic town (every agent present at the current step is simulated).
    const town = generateTown({ seed: 11 }, ctx.quick ? 41 : 91).scenario;
    town.controlled = Uint8Array.from(
      town.controlled,
      (_, a) => town.agents.valid[a * town.numSteps + town.currentStep],
    );
    const tt = agentTable('Synthetic town (seed 11)', [town]);
    sections.push(tt.body);
    ctx.figures['town idm collision rate'] = +tt.rows.idm.collision_rate.toFixed(3);
    sections.push(await intentionSection(town, out, ctx.quick));
    bar.tick();
    // 3. AV2 annotation tracks (no map shipped: off-road and road-edge are not rated).
    const av2 = realData('av2-7fab2350');
    if (fs.existsSync(path.join(av2, 'annotations.feather'))) {
      sections.push(
        agentTable(
          'Argoverse 2 log 7fab2350 annotation tracks (no map: off-road n/a)',
          loadScenarios(av2).map((l) => l.scenario),
        ).body,
      );
    }
    bar.tick();
    // 4. The Sim Agents realism table (official WOSAC 2025 metric) with the stand-still sanity row.
    const N = 8;
    const wosac: string[] = [];
    for (const set of resultSets(ctx.quick ? 0 : 1)) {
      const rows = resultRows(set, N);
      const idm = rows.find((r) => r.agent === 'idm')!;
      ctx.figures[`wosac meta idm ${set.name.split(' ')[0]}`] = +idm.metaMetric.toFixed(3);
      wosac.push(
        `${set.name}: ${set.scenarios.length} scenario(s), ${rows[0].scoredAgents.toFixed(0)} scored agents each\n\n${markdownWosacTable(rows)}`,
      );
    }
    sections.push(
      `Sim Agents realism (the official WOSAC 2025 meta-metric and its likelihoods; N = ${N} seeded rollouts per scenario here, 32 in the challenge and the README; 'still' is a broken agent that stands still, the sanity row):\n\n${wosac.join('\n\n')}`,
    );
    bar.tick();
    // 5. Long-tail scenarios, each kind oracle-checked.
    const count = ctx.quick ? 3 : 20;
    const reports = Object.keys(LONGTAIL_KINDS).map((k) =>
      runLongtailKind(k, count, 1, path.join(out, 'longtail'), true),
    );
    for (const r of reports)
      ctx.figures[`longtail ${r.kind} idm collision`] = +r.collision_rate.idm.toFixed(2);
    sections.push(
      `Long-tail scenarios (${count} per kind, seed 1; every one solvable by the full-knowledge oracle — replay drives the oracle's plan):\n\n\`\`\`\n${formatLongtailTable(reports)}\n\`\`\``,
    );
    bar.tick();
    // 6. The learned agents (the shipped RTR full-recipe agent, DAgger, BC, PPO, RTR, EMA-PG) beside the built-in ones, reduced (N = 4, one town,
    // one long-tail scenario per kind); the full table (N = 32, three towns) is npm run agents-table.
    const learned = agentsTable({
      rollouts: ctx.quick ? 2 : 4,
      metricRollouts: 2,
      towns: ctx.quick ? 0 : 1,
      longtailCount: ctx.quick ? 0 : 1,
    });
    for (const s of learned) {
      const shipped = s.rows.find((r) => r.agent === SHIPPED_ROW);
      if (shipped)
        ctx.figures[`agents shipped collision ${s.name.split(' ')[0]}`] = +shipped.collision_rate.toFixed(3);
    }
    sections.push(
      `Learned traffic agents (docs/agents.md; reduced: N = ${ctx.quick ? 2 : 4} seeded rollouts, rates over 2; the full table is npm run agents-table):\n\n${learned.map((s) => `${s.name}: ${s.scenarios} scenario(s)\n\n${markdownAgentsTable(s)}`).join('\n\n')}`,
    );
    bar.tick();
    bar.stop();
    ctx.report.push({ title: 'Closed-loop simulation', body: sections.join('\n\n') });
  },
};
