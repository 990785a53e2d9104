// `drivekit agent-settings`: a copy of an agent model whose metadata changes what acts at inference (classes
// left to the probe, the probe's merge yield, temperature), the weights byte for byte; bad changes refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readLearnedModel, SHIPPED_AGENT_MODEL } from '../../simulation/agents/learned.ts';
import { runCli } from '../../tools/program.ts';
import { shippedModelCopy } from '../simulation/agents/shippedModelCopy.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-agent-settings-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  try {
    return { code: await runCli(['node', 'drivekit', 'agent-settings', ...args]), stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

const metaOf = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8')) as {
    settings: { probeDriven?: string[]; observation: { probeMergeYield?: boolean }; temperature?: number };
    data: { derived?: { from: string } };
  };

describe('drivekit agent-settings', () => {
  // A model without either setting, so each change is visible.
  const plain = shippedModelCopy(tmp, 'plain', 'probeDriven', undefined);
  const meta = JSON.parse(fs.readFileSync(plain.replace(/\.onnx$/, '.json'), 'utf8'));
  delete meta.settings.observation.probeMergeYield;
  fs.writeFileSync(plain.replace(/\.onnx$/, '.json'), JSON.stringify(meta));

  it('writes the weights unchanged and the settings asked for, recording where they came from', async () => {
    const out = path.join(tmp, 'both');
    expect(
      (await cli('--model', plain, '--probe-drives', 'cyclist', '--probe-merge-yield', '--out', out)).code,
    ).toBe(0);
    expect(fs.readFileSync(path.join(out, 'agent.onnx')).equals(fs.readFileSync(plain))).toBe(true);
    const { spec } = readLearnedModel(path.join(out, 'agent.onnx'));
    expect(spec.probeDriven).toEqual(['cyclist']);
    expect(spec.observation.probeMergeYield).toBe(true);
    expect(metaOf(out).data.derived?.from).toBe(plain);
    // Nothing else of the settings moves.
    const { observation: o1, ...rest1 } = metaOf(out).settings;
    const { observation: o0, ...rest0 } = meta.settings;
    expect({ ...rest1, probeDriven: undefined }).toEqual({ ...rest0, probeDriven: undefined });
    expect({ ...o1, probeMergeYield: undefined }).toEqual({ ...o0, probeMergeYield: undefined });
  });

  it('clears with none and --no-probe-merge-yield, and leaves what it is not told to change', async () => {
    const out = path.join(tmp, 'cleared');
    const from = path.join(tmp, 'both', 'agent.onnx');
    expect((await cli('--model', from, '--probe-drives', 'none', '--out', out)).code).toBe(0);
    expect(metaOf(out).settings.probeDriven).toBeUndefined();
    expect(metaOf(out).settings.observation.probeMergeYield).toBe(true);
    const out2 = path.join(tmp, 'nomerge');
    expect(
      (await cli('--model', from, '--no-probe-merge-yield', '--temperature', '0.5', '--out', out2)).code,
    ).toBe(0);
    expect(metaOf(out2).settings.observation.probeMergeYield).toBe(false);
    expect(metaOf(out2).settings.probeDriven).toEqual(['cyclist']);
    expect(metaOf(out2).settings.temperature).toBe(0.5);
  });

  it('refuses an existing copy, a class it cannot hand over and a model without residual bins, writing nothing', async () => {
    const again = await cli('--model', plain, '--probe-drives', 'cyclist', '--out', path.join(tmp, 'both'));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/agent\.onnx: exists \(pass --force/);
    const walkers = await cli(
      '--model',
      plain,
      '--probe-drives',
      'pedestrian',
      '--out',
      path.join(tmp, 'walkers'),
    );
    expect(walkers.code).toBe(1);
    expect(walkers.stderr).toContain(`${plain}: settings.probeDriven must be an array`);
    expect(fs.existsSync(path.join(tmp, 'walkers'))).toBe(false);
    const absolute = path.join(path.dirname(SHIPPED_AGENT_MODEL), 'agent-rtr-full.onnx');
    const abs = await cli('--model', absolute, '--probe-drives', 'cyclist', '--out', path.join(tmp, 'abs'));
    expect(abs.code).toBe(1);
    expect(abs.stderr).toMatch(/needs residual steering and acceleration bins/);
    expect(fs.existsSync(path.join(tmp, 'abs'))).toBe(false);
  });
});
