import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realData } from '../../../core/paths.ts';
import {
  foldSpec,
  prepareRealMotion,
  readRealFolds,
  realScenariosBySource,
  realSourceOf,
} from '../../../tools/report/realFolds.ts';

describe('real folds', () => {
  it('groups scenario sources by recording', () => {
    expect(realSourceOf('womd-json:gpudrive')).toBe('WOMD');
    expect(realSourceOf('scenarionet:waymo')).toBe('WOMD');
    expect(realSourceOf('scenarionet:nuscenes')).toBe('nuScenes');
    expect(realSourceOf('av2-motion')).toBe('AV2');
    expect(realSourceOf('synthetic')).toBeUndefined();
  });

  it('refuses a scenario in two folds, naming the file and the id', () => {
    const f = path.join(os.tmpdir(), `folds-${process.pid}.json`);
    const e = { source: 'WOMD', id: 'x1', path: 'womd-json/a.json' };
    fs.writeFileSync(f, JSON.stringify({ folds: { A: [e], B: [e] } }));
    expect(() => readRealFolds(f)).toThrow(/folds-.*x1 is in folds A and B/);
    fs.writeFileSync(f, '{');
    expect(() => readRealFolds(f)).toThrow(/not a readable folds file/);
  });

  it.skipIf(!fs.existsSync(realData('motion')))(
    'puts every real scenario of ../shared in exactly one fold, each fold holding every source with two or more',
    async () => {
      const folds = readRealFolds();
      await prepareRealMotion();
      const bySource = realScenariosBySource();
      const foldOf = new Map<string, string>();
      for (const [k, list] of Object.entries(folds.folds)) for (const e of list) foldOf.set(e.id, k);
      for (const { source, scenarios } of bySource) {
        for (const s of scenarios) expect(foldOf.has(s.id), `${source} ${s.id}`).toBe(true);
        if (scenarios.length >= 2)
          for (const k of Object.keys(folds.folds))
            expect(folds.folds[k].some((e) => e.source === source)).toBe(true);
      }
      expect(foldOf.size).toBe(bySource.reduce((n, s) => n + s.scenarios.length, 0));
      // The fold's paths exist (train-agents --scenarios takes them comma-separated).
      for (const p of foldSpec(folds, 'A').split(',')) expect(fs.existsSync(p), p).toBe(true);
    },
    60_000,
  );
});
