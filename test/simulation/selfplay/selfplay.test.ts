// Asymmetric self-play (docs/selfplay.md): the teacher's draws, the realism bounds, the reward's asymmetry,
// a teacher update moving towards rewarded choices, a resumable tiny training run and the generator export.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { AGENTS } from '../../../simulation/agents/registry.ts';
import { generateLongtail, LONGTAIL_KINDS } from '../../../simulation/longtail/generate.ts';
import {
  binQuantile,
  ChosenDraws,
  DEFAULT_DRAW_SPACE,
  slotsUsed,
  TEACHER_KINDS,
} from '../../../simulation/selfplay/chosenDraws.ts';
import { DEFAULT_GAME, judge, type Proposal, propose } from '../../../simulation/selfplay/proposals.ts';
import { teacherRealism } from '../../../simulation/selfplay/realism.ts';
import { TeacherModel } from '../../../simulation/selfplay/teacherModel.ts';
import {
  DEFAULT_SELFPLAY,
  SELFPLAY_FILES,
  studentRecipe,
  trainSelfplay,
} from '../../../simulation/selfplay/trainSelfplay.ts';
import { readStudentSpec } from '../../../simulation/selfplay/student.ts';
import { scenariosFromSpec } from '../../../simulation/training/scenarioSpec.ts';
import { validateScenario } from '../../../simulation/validateScenario.ts';
import { runGeneratorExport } from '../../../tools/commands/exportSelfplay.ts';
import { readWomdFile } from '../../../datasets/womd.ts';
import { LogReader } from '../../../datasets/logstore.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'selfplay-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const asProposal = (
  kind: string,
  l: ReturnType<typeof generateLongtail>[number],
  solved: boolean,
): Proposal => ({
  kind,
  scenario: l.scenario,
  params: l.params,
  ctx: new Float32Array(0),
  bins: new Int32Array(0),
  mask: new Float32Array(0),
  logp: 0,
  value: 0,
  solution: solved ? { brakeMps2: l.oracleBrakeMps2, resumeAfterS: l.oracleResumeS } : null,
});

describe('self-play teacher', () => {
  it("draws each slot at its bin's quantile, past the kind's range at the outer bins", () => {
    const d = new ChosenDraws(Int32Array.of(0, DEFAULT_DRAW_SPACE.bins - 1, 4));
    expect(d.uniform(10, 20)).toBeCloseTo(10 + 10 * DEFAULT_DRAW_SPACE.lowQ);
    expect(d.uniform(10, 20)).toBeCloseTo(10 + 10 * DEFAULT_DRAW_SPACE.highQ);
    expect(d.uniform(0, 1)).toBeCloseTo(binQuantile(DEFAULT_DRAW_SPACE, 4));
    // A range that starts at 0 never goes negative.
    expect(new ChosenDraws(Int32Array.of(0)).uniform(0, 2)).toBe(0);
    for (const k of TEACHER_KINDS) expect(slotsUsed(k)).toBeLessThanOrEqual(DEFAULT_DRAW_SPACE.slots);
  });

  it('builds a valid scenario of every kind from any choice of bins', () => {
    const rng = new Rng(3);
    for (const k of TEACHER_KINDS) {
      const bins = Int32Array.from({ length: DEFAULT_DRAW_SPACE.slots }, () =>
        rng.int(DEFAULT_DRAW_SPACE.bins),
      );
      const d = LONGTAIL_KINDS[k].build(new ChosenDraws(bins), `t-${k}`);
      validateScenario(d.scenario, k);
    }
  });

  it('judges realism: procedural agents are within the bounds, a 12 m/s² stop is not', () => {
    const [l] = generateLongtail('cut-in', 1, 2);
    expect(teacherRealism(l.scenario).plausible).toBe(true);
    // hard-brake's deceleration is its 4th draw: the outermost bin asks 10 + 0.25·3 = 10.75 m/s² > 10.4.
    const bins = Int32Array.of(4, 4, 4, DEFAULT_DRAW_SPACE.bins - 1, 0, 0);
    const harsh = LONGTAIL_KINDS['hard-brake'].build(new ChosenDraws(bins), 'harsh');
    const r = teacherRealism(harsh.scenario);
    expect(r.plausible).toBe(false);
    expect(r.withinBounds).toBeLessThan(1);
  });

  it('rewards the student failing only where the teacher solves it (adversarial: failing alone)', () => {
    const [l] = generateLongtail('hard-brake', 1, 4);
    const cv = () => AGENTS.cv();
    const [solved] = judge([asProposal('hard-brake', l, true)], cv);
    expect(solved.solvable).toBe(true);
    expect(solved.studentFailed).toBe(true); // constant velocity rams the braking lead car
    expect(solved.reward).toBe(1);
    const [l2] = generateLongtail('hard-brake', 1, 4);
    const [unsolved] = judge([asProposal('hard-brake', l2, false)], cv);
    expect(unsolved.solvable).toBe(false);
    expect(unsolved.reward).toBeLessThan(0);
    const [l3] = generateLongtail('hard-brake', 1, 4);
    const [adv] = judge([asProposal('hard-brake', l3, false)], cv, {
      ...DEFAULT_GAME,
      mode: 'adversarial',
    });
    expect(adv.reward).toBe(1);
    // The teacher's solution replays without collision: it is what the export writes as the ego's log.
    const [l4] = generateLongtail('hard-brake', 1, 4);
    const [replayed] = judge([asProposal('hard-brake', l4, true)], () => AGENTS.replay());
    expect(replayed.studentFailed).toBe(false);
  });

  it('moves its choices towards rewarded bins in a few PPO updates', async () => {
    const t = await TeacherModel.create({ seed: 2 });
    try {
      const rng = new Rng(1);
      const n = 64;
      const mean0 = async () => {
        const ps = await propose(t, n, new Rng(9), 'p', ['hard-brake']);
        return ps.reduce((a, p) => a + p.bins[0], 0) / n;
      };
      const before = await mean0();
      for (let round = 0; round < 6; round++) {
        const ps = await propose(t, n, rng, `r${round}`, ['hard-brake']);
        // Reward: the first slot's bin (a stand-in for "the student failed"); advantage normalised.
        const r = ps.map((p) => p.bins[0] / (DEFAULT_DRAW_SPACE.bins - 1));
        const m = r.reduce((a, b) => a + b, 0) / n;
        const sd = Math.sqrt(r.reduce((a, b) => a + (b - m) ** 2, 0) / n) || 1;
        const S = DEFAULT_DRAW_SPACE.slots;
        await t.update(
          {
            count: n,
            ctx: Float32Array.from(ps.flatMap((p) => [...p.ctx])),
            action: BigInt64Array.from(ps.flatMap((p) => [...p.bins].map(BigInt))),
            mask: Float32Array.from(ps.flatMap((p) => [...p.mask])),
            oldLogp: Float32Array.from(ps, (p) => p.logp),
            advantage: Float32Array.from(r, (x) => (x - m) / sd),
            return: Float32Array.from(r),
          },
          rng,
        );
        expect(S).toBe(ps[0].bins.length);
      }
      const after = await mean0();
      expect(after).toBeGreaterThan(before + 1);
    } finally {
      await t.dispose();
    }
  });
});

describe('the student recipe', () => {
  it("fine-tunes the shipped agent with the RL settings it was trained with, or RTR's first recipe on request", () => {
    const spec = readStudentSpec('models/agent.onnx');
    const meta = JSON.parse(fs.readFileSync('models/agent.json', 'utf8')) as {
      settings: {
        dual: unknown;
        ppo: { epochs: number };
        ruleAgents: boolean;
        rl: { rateSmoothing: number; ilSetSize: number; closedLoop: { labelStride: number } };
      };
      lambda: number;
    };
    const own = studentRecipe(DEFAULT_SELFPLAY, spec);
    expect(own.closedLoop.ruleAgents).toBe(meta.settings.ruleAgents);
    expect(own.closedLoop.labelStride).toBe(meta.settings.rl.closedLoop.labelStride);
    expect(own.ilSetSize).toBe(meta.settings.rl.ilSetSize);
    expect(own.dual).toEqual(meta.settings.dual);
    expect(own.ppo.epochs).toBe(meta.settings.ppo.epochs);
    expect(own.rateSmoothing).toBe(meta.settings.rl.rateSmoothing);
    expect(own.lambda).toBe(meta.lambda);
    const basic = studentRecipe({ ...DEFAULT_SELFPLAY, studentRecipe: 'basic' }, spec);
    expect(basic).toEqual({
      ppo: DEFAULT_SELFPLAY.ppo,
      dual: DEFAULT_SELFPLAY.dual,
      closedLoop: {},
      rateSmoothing: 0,
      ilSetSize: 0,
      lambda: DEFAULT_SELFPLAY.lambda,
    });
  });
});

describe('self-play training and export', () => {
  const run = path.join(tmp, 'run');
  it('trains the teacher against a frozen student, resumes from its last round, and exports a dataset', async () => {
    const input = { nominal: [], studentInit: 'models/agent.onnx', out: run, data: { command: 'test' } };
    const tiny = {
      rounds: 1,
      proposalsPerRound: 4,
      studentIterations: 0,
      teacherMinibatch: 4,
      teacherEpochs: 1,
    };
    const a = await trainSelfplay(input, tiny);
    expect(a.roundsDone).toBe(1);
    expect(a.curve[0].solvable).toBeGreaterThanOrEqual(0);
    const b = await trainSelfplay(input, { ...tiny, rounds: 2 });
    expect(b.resumedFrom).toBe(1);
    expect(b.curve.length).toBe(2);
    const teacher = path.join(run, SELFPLAY_FILES.teacher);
    expect(fs.existsSync(teacher)).toBe(true);
    await expect(trainSelfplay(input, { ...tiny, generator: 'longtail', rounds: 3 })).rejects.toThrow(
      /selfplay run/,
    );

    const out = path.join(tmp, 'export');
    const r = await runGeneratorExport({ generator: 'selfplay', count: 2, out, teacher, json: true });
    expect(r.scenarios).toBe(2);
    const sheet = JSON.parse(fs.readFileSync(path.join(out, 'datasheet.json'), 'utf8'));
    expect(sheet.count).toBe(2);
    expect(Object.values(sheet.counts_by_kind as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(2);
    // Self-play exports only scenarios its solution passes.
    expect(sheet.solvability.exported_solvable_rate).toBe(1);
    expect(sheet.models.teacher.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The shipped student's settings were changed after training: the sheet names both commands.
    expect(sheet.models.student.trainedBy).toMatch(/^drivekit train-agents /);
    expect(sheet.models.student.settingsBy).toMatch(/^drivekit agent-settings /);
    expect(fs.readFileSync(path.join(out, 'datasheet.md'), 'utf8')).toContain('| all | 2 |');
    expect(readWomdFile(path.join(out, 'womd', 'scenarios.tfrecord')).length).toBe(2);
    expect(fs.readdirSync(path.join(out, 'gpudrive')).length).toBe(2);
    expect(fs.readdirSync(tmp).filter((n) => n.includes('.tmp-'))).toEqual([]);
  }, 120_000);

  it('fine-tunes the student with its own recipe, its expert-labelled rows kept and resumed with the run', async () => {
    const out = path.join(tmp, 'student');
    const input = {
      nominal: scenariosFromSpec('town:1', '--scenarios'),
      studentInit: 'models/agent.onnx',
      out,
      data: { command: 'test' },
    };
    const tiny = { generator: 'nominal' as const, rounds: 1, studentIterations: 1, townsPerIteration: 1 };
    await trainSelfplay(input, tiny);
    const ilFile = path.join(out, SELFPLAY_FILES.ilSet);
    expect(fs.existsSync(ilFile)).toBe(true);
    const rowsAfter1 = fs.statSync(ilFile).size;
    const b = await trainSelfplay(input, { ...tiny, rounds: 2 });
    expect(b.resumedFrom).toBe(1);
    // The second round's labelled states joined the set it resumed (the demonstrations alone fill less).
    expect(fs.statSync(ilFile).size).toBeGreaterThan(rowsAfter1);
    const meta = JSON.parse(fs.readFileSync(path.join(out, SELFPLAY_FILES.studentMeta), 'utf8'));
    expect(meta.settings.studentRecipe).toBe('model');
    expect(meta.settings.closedLoop.ruleAgents).toBe(true);
  }, 240_000);

  it("renders the ego's LiDAR of each exported scenario on request, a log with poses and labels", async () => {
    const out = path.join(tmp, 'with-lidar');
    const r = await runGeneratorExport({
      generator: 'longtail',
      count: 1,
      out,
      lidar: true,
      lidarFrames: 2,
      json: true,
    });
    expect(r.files).toContain(path.join(out, 'lidar'));
    const [dir] = fs.readdirSync(path.join(out, 'lidar'));
    const log = await LogReader.open(path.join(out, 'lidar', dir));
    try {
      expect(log.frameCount).toBe(2);
      expect((await log.readFrame(1)).points.x.length).toBeGreaterThan(1000);
    } finally {
      await log.close();
    }
    await expect(
      runGeneratorExport({
        generator: 'longtail',
        count: 1,
        out: path.join(tmp, 'bad-lidar'),
        lidar: true,
        lidarModel: 'x',
      }),
    ).rejects.toThrow(/--lidar-model: unknown model 'x'/);
  });

  it('names the problem on bad input and leaves nothing behind', async () => {
    const out = path.join(tmp, 'bad');
    await expect(runGeneratorExport({ generator: 'nope', out })).rejects.toThrow(
      /--generator: unknown generator 'nope'/,
    );
    await expect(
      runGeneratorExport({ generator: 'selfplay', out, teacher: path.join(tmp, 'missing.onnx') }),
    ).rejects.toThrow(/missing\.onnx: no such teacher model/);
    await expect(runGeneratorExport({ generator: 'longtail', out, teacher: 'x.onnx' })).rejects.toThrow(
      /--teacher/,
    );
    expect(fs.existsSync(out)).toBe(false);
  });
});
