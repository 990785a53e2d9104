// Bad input gets a clear error and leaves nothing behind: every count and size option and config value is
// bounded and checked with its name (exit 2), an unknown import format is a usage error, a truncated AV2
// feather is named as truncated, a wrong-shaped agent ONNX beside a valid metadata JSON is refused at load, and
// train-agents refuses steering, heads or crossing slots that do not fit its observation or its --init model,
// and a long-tail share without the recipe or the long-tail scenarios it draws from.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realData, REPO_ROOT } from '../../core/paths.ts';
import { parseNumberText } from '../../tools/numberOption.ts';
import { tmpDir } from '../datasets/tmp.ts';
import { itWithSharedData } from '../sharedData.ts';
import { expectOneLineFailure } from './commands/castLog.ts';

const SCENARIOS = path.join(REPO_ROOT, 'test/simulation/fixtures/scenario-v1');

describe('every count and size is bounded', () => {
  it('an option without a declared upper bound still has one', () => {
    expect(parseNumberText('1e12', { integer: true, min: 1 })).toEqual({
      problem: "must be ≤ 2147483647 (a whole number), got '1e12'",
    });
    expect(parseNumberText('1e308', { above: 0 })).toEqual({
      problem: "must be ≤ 1000000000 (a number), got '1e308'",
    });
    expect(parseNumberText('12', { integer: true, min: 1 })).toBe(12);
  });

  it('synth --frames 1e12, sim --rollouts 1e12, longtail --count 1e6 exit 2 naming the option; nothing is written', async () => {
    const root = tmpDir();
    await expectOneLineFailure(
      ['synth', '--frames', '1e12', '--out', path.join(root, 'log')],
      /^drivekit( [a-z-]+)?: --frames: must be a whole number ≥ 1 and ≤ \d+, got '1e12'/,
    );
    await expectOneLineFailure(
      [
        'sim',
        '--scenarios',
        SCENARIOS,
        '--agents',
        'idm',
        '--out',
        path.join(root, 'sim'),
        '--rollouts',
        '1e12',
      ],
      /^drivekit( [a-z-]+)?: --rollouts: must be a whole number ≥ 1 and ≤ \d+, got '1e12'/,
    );
    await expectOneLineFailure(
      [
        'sim',
        '--scenarios',
        SCENARIOS,
        '--agents',
        'idm',
        '--out',
        path.join(root, 'sim'),
        '--limit',
        '1e12',
      ],
      /^drivekit( [a-z-]+)?: --limit: must be ≤ 2147483647 \(a whole number\), got '1e12'/,
    );
    await expectOneLineFailure(
      ['longtail', '--kind', 'all', '--count', '1e6', '--out', path.join(root, 'lt')],
      /^drivekit( [a-z-]+)?: --count: must be a whole number ≥ 1 and ≤ \d+, got '1e6'/,
    );
    expect(fs.readdirSync(root)).toEqual([]);
  }, 60_000);

  it('discover --config with voxelM 1e308 exits 2 naming the field', async () => {
    await expectOneLineFailure(
      ['discover', '--log', 'none', '--config', '{"cluster":{"voxelM":1e308}}'],
      /^drivekit( [a-z-]+)?: --config: invalid config: cluster\.voxelM must be ≤ 10000 \(a length in metres\), got 1e\+308/,
    );
  }, 30_000);
});

describe('bad input files and formats', () => {
  it('import --format xyz is a usage error (exit 2)', async () => {
    const root = tmpDir();
    await expectOneLineFailure(
      ['import', root, '--format', 'xyz', '--out', path.join(root, 'log')],
      /^drivekit( [a-z-]+)?: --format: unknown format 'xyz' \(known: [a-z0-9, ]+\)/,
    );
  }, 30_000);

  itWithSharedData(
    'a truncated AV2 sweep is named as truncated, not "Cannot read properties of null"',
    async () => {
      const root = tmpDir();
      const src = path.join(root, 'av2');
      fs.cpSync(realData('av2-7fab2350'), src, { recursive: true });
      const sweep = path.join(src, 'sensors/lidar/315966265360032000.feather');
      fs.truncateSync(sweep, Math.floor(fs.statSync(sweep).size / 2));
      await expectOneLineFailure(
        ['import', src, '--format', 'av2', '--out', path.join(root, 'log'), '--json'],
        new RegExp(`^drivekit( [a-z-]+)?: ${sweep}: truncated: \\d+ bytes, ending before the Arrow footer`),
      );
      expect(fs.readdirSync(root)).toEqual(['av2']);
    },
    30_000,
  );

  it('a wrong-shaped agent ONNX with a metadata JSON beside it is refused at load, naming it', async () => {
    const root = tmpDir();
    // The detector's graph (input bev, outputs heatmap and boxes) under the agent's metadata.
    const onnx = path.join(root, 'agent.onnx');
    fs.copyFileSync(path.join(REPO_ROOT, 'models/detector.onnx'), onnx);
    fs.copyFileSync(path.join(REPO_ROOT, 'models/agent.json'), path.join(root, 'agent.json'));
    await expectOneLineFailure(
      ['sim', '--scenarios', SCENARIOS, '--agents', onnx, '--out', path.join(root, 'sim'), '--rollouts', '2'],
      new RegExp(
        `^drivekit( [a-z-]+)?: ${onnx}: not an agent graph for its metadata: it needs input obs \\[n, \\d+\\]`,
      ),
    );
    expect(fs.readdirSync(root).sort()).toEqual(['agent.json', 'agent.onnx']);
  }, 30_000);

  it("train-agents refuses residual steering without the route, and heads or crossing slots other than its --init model's", async () => {
    const root = tmpDir();
    const base = [
      'train-agents',
      '--mode',
      'dagger',
      '--scenarios',
      'town:1',
      '--out',
      path.join(root, 'run'),
    ];
    await expectOneLineFailure(
      [...base, '--steering', 'residual', '--observation', '1'],
      /^drivekit( [a-z-]+)?: --steering: residual bins need --observation 2/,
    );
    await expectOneLineFailure(
      [...base, '--init', path.join(REPO_ROOT, 'models/agent-dagger.onnx'), '--heads', 'factorised'],
      /^drivekit( [a-z-]+)?: --heads: factorised, but the --init model .*agent-dagger\.onnx has joint/,
    );
    await expectOneLineFailure(
      [...base, '--init', path.join(REPO_ROOT, 'models/agent-dagger.onnx'), '--crossings', '2'],
      /^drivekit( [a-z-]+)?: --crossings: 2, but the --init model .*agent-dagger\.onnx has 0/,
    );
    await expectOneLineFailure(
      [...base, '--crossings', '2', '--observation', '1'],
      /^drivekit( [a-z-]+)?: --crossings: is an option of the expert block: use --observation 2/,
    );
    await expectOneLineFailure(
      [...base, '--probe-yield-horizon', '1.5', '--observation', '1'],
      /^drivekit( [a-z-]+)?: --probe-yield-horizon: is an option of the expert block: use --observation 2/,
    );
    await expectOneLineFailure(
      [...base, '--longtail', 'cut-in:1', '--longtail-share', '0.5'],
      /^drivekit( [a-z-]+)?: --longtail-share: is part of the RL recipe: use --mode ppo or rtr with --rl-recipe full/,
    );
    const ppo = [...base.slice(0, 2), 'ppo', ...base.slice(3)];
    await expectOneLineFailure(
      [...ppo, '--expert-yield-horizon', '1.5'],
      /^drivekit( [a-z-]+)?: --expert-yield-horizon: is the labelling expert's: use --mode dagger, or --mode rtr --rl-recipe full/,
    );
    await expectOneLineFailure(
      [...base, '--expert-yield-horizon', '-1'],
      /^drivekit( [a-z-]+)?: --expert-yield-horizon: must be a number ≥ 0, got '-1'/,
    );
    const rtr = [...base.slice(0, 2), 'rtr', ...base.slice(3), '--rl-recipe', 'full'];
    await expectOneLineFailure(
      [...rtr, '--longtail-share', '0.5'],
      /^drivekit( [a-z-]+)?: --longtail-share: needs long-tail scenarios to draw from: give --longtail/,
    );
    expect(fs.readdirSync(root)).toEqual([]);
  }, 30_000);
});
