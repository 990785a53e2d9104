// Checkpoints: the safetensors format, and a real training process killed mid-run that resumes from
// its last checkpoint to exactly the parameters (and optimizer state) of an uninterrupted run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.ts';
import * as nn from '../../../core/nn/index.ts';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'resumeChild.ts');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
}

/** Run the training child; kill it with SIGKILL once it prints `killAt` (if given). */
function runChild(args: string[], killAt?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buf = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let k;
      while ((k = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, k);
        buf = buf.slice(k + 1);
        lines.push(line);
        if (killAt && line === killAt) p.kill('SIGKILL');
      }
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`child failed (${code}): ${err}`));
      else resolve({ code, signal, lines });
    });
  });
}

describe('safetensors', () => {
  it('round-trips tensors and metadata in the documented layout', () => {
    const tensors = new Map<string, nn.NamedTensor>([
      ['b', { dtype: 'float32', shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) }],
      ['a', { dtype: 'int64', shape: [2], data: BigInt64Array.from([7n, -8n]) }],
      ['c', { dtype: 'float64', shape: [], data: Float64Array.from([Math.PI]) }],
    ]);
    const bytes = nn.encodeSafetensors(tensors, { note: 'hi' });
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + n) % 8).toBe(0);
    const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + n)).toString());
    expect(header.__metadata__).toEqual({ note: 'hi' });
    expect(header.a).toEqual({ dtype: 'I64', shape: [2], data_offsets: [0, 16] });
    expect(header.b).toEqual({ dtype: 'F32', shape: [2, 3], data_offsets: [16, 40] });
    const back = nn.decodeSafetensors(bytes);
    expect(back.metadata).toEqual({ note: 'hi' });
    expect(Array.from(back.tensors.get('b')!.data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from(back.tensors.get('a')!.data as BigInt64Array)).toEqual([7n, -8n]);
    expect((back.tensors.get('c')!.data as Float64Array)[0]).toBe(Math.PI);
    expect(() => nn.decodeSafetensors(bytes.subarray(0, 30), 'x.safetensors')).toThrow(InputError);
    expect(() => nn.decodeSafetensors(bytes.subarray(0, 30), 'x.safetensors')).toThrow(/^x\.safetensors: /);
  });
});

describe('checkpoints', () => {
  it('a run killed mid-training resumes to exactly the uninterrupted result', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nn-resume-'));
    const f = (name: string) => path.join(dir, name);
    const steps = '40';
    const every = '10';
    // Uninterrupted reference run.
    const a = await runChild([f('a.ckpt'), f('a.final'), steps, every, '0']);
    expect(a.lines.at(-1)).toBe('done');
    expect(a.lines).toContain('resumed null');
    // Killed after step 25: its last checkpoint is step 20.
    const b1 = await runChild([f('b.ckpt'), f('b.final'), steps, every, '30'], 'step 25');
    expect(b1.signal).toBe('SIGKILL');
    expect(b1.lines).not.toContain('done');
    expect(fs.existsSync(f('b.final'))).toBe(false);
    const saved = nn.decodeSafetensors(new Uint8Array(fs.readFileSync(f('b.ckpt'))));
    const savedStep = Number(saved.metadata.step);
    expect(savedStep).toBeGreaterThanOrEqual(20);
    expect(savedStep).toBeLessThan(40);
    // Restart: resumes from the checkpoint and finishes.
    const b2 = await runChild([f('b.ckpt'), f('b.final'), steps, every, '0']);
    expect(b2.lines).toContain(`resumed ${savedStep}`);
    expect(b2.lines[0]).toBe(`step ${savedStep + 1}`);
    // Same final parameters, bit for bit, and the same final checkpoint (optimizer state, RNG, step).
    const pa = nn.decodeSafetensors(new Uint8Array(fs.readFileSync(f('a.final')))).tensors;
    const pb = nn.decodeSafetensors(new Uint8Array(fs.readFileSync(f('b.final')))).tensors;
    expect([...pb.keys()]).toEqual([...pa.keys()]);
    for (const [k, t] of pa)
      expect(Buffer.from(pb.get(k)!.data.buffer).equals(Buffer.from(t.data.buffer))).toBe(true);
    expect(fs.readFileSync(f('b.ckpt')).equals(fs.readFileSync(f('a.ckpt')))).toBe(true);
    // Nothing half-written is left behind.
    expect(fs.readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('keeps a copy of the best parameters as tensors, and reads the copy older files kept in extra', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nn-best-'));
    try {
      const ps = new nn.ParamStore({ seed: 3 });
      nn.mlp(ps, 'net', [2, 4, 1]);
      const optimizer = nn.adamW({});
      const best = ps.snapshot();
      for (const v of best.values()) v.fill(0.25);
      const file = path.join(dir, 'a.ckpt');
      await nn.saveCheckpoint(file, { step: 3, params: ps, optimizer, extra: { bestEpoch: 2 }, best });
      const names = [...nn.decodeSafetensors(new Uint8Array(fs.readFileSync(file))).tensors.keys()];
      expect(names.filter((k) => k.startsWith('best/')).length).toBe(best.size);
      const r = await nn.loadCheckpoint(file, { params: ps, optimizer });
      expect(r.extra).toEqual({ bestEpoch: 2 });
      expect([...r.best!.keys()].sort()).toEqual([...best.keys()].sort());
      for (const [k, v] of best) expect(Array.from(r.best!.get(k)!)).toEqual(Array.from(v));
      // None kept: null. A file that kept it as number arrays in extra.best: that copy.
      const none = path.join(dir, 'b.ckpt');
      await nn.saveCheckpoint(none, { step: 1, params: ps, optimizer });
      expect((await nn.loadCheckpoint(none, { params: ps, optimizer })).best).toBeNull();
      const old = path.join(dir, 'c.ckpt');
      const legacy = Object.fromEntries([...best].map(([k, v]) => [k, Array.from(v)]));
      await nn.saveCheckpoint(old, { step: 1, params: ps, optimizer, extra: { best: legacy } });
      const o = await nn.loadCheckpoint(old, { params: ps, optimizer });
      for (const [k, v] of best) expect(Array.from(o.best!.get(k)!)).toEqual(Array.from(v));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
