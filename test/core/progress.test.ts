// Progress off a terminal (core/progress.ts lineProgress): a line per finished item with a rate and an ETA,
// throttled on long jobs, one line for a 1-item job, the last saying how long the job took.
import { describe, expect, it } from 'vitest';
import { formatSeconds, lineProgress } from '../../core/progress.ts';

function clocked(total: number, minIntervalMs = 1000) {
  let t = 0;
  const lines: string[] = [];
  const p = lineProgress('tokenize', total, {
    unit: 'frames',
    write: (l) => lines.push(l),
    now: () => t,
    minIntervalMs,
  });
  return { p, lines, advance: (ms: number) => (t += ms) };
}

describe('lineProgress', () => {
  it('prints one line for a 1-item job', () => {
    const { p, lines, advance } = clocked(1);
    advance(2000);
    p.tick();
    p.update(1);
    p.stop();
    expect(lines).toEqual(['tokenize: 1/1 (100%), 0.50 frames/s, done in 2.0 s\n']);
  });

  it('reports each item with its rate and the ETA from it', () => {
    const { p, lines, advance } = clocked(4);
    for (let i = 0; i < 4; i++) {
      advance(1500);
      p.tick(1, i === 1 ? 'log-a' : undefined);
    }
    expect(lines).toEqual([
      'tokenize: 1/4 (25%), 0.67 frames/s, ETA 4.5 s\n',
      'tokenize: 2/4 (50%), 0.67 frames/s, ETA 3.0 s log-a\n',
      'tokenize: 3/4 (75%), 0.67 frames/s, ETA 1.5 s\n',
      'tokenize: 4/4 (100%), 0.67 frames/s, done in 6.0 s\n',
    ]);
  });

  it('throttles fast items to a line a second, always printing the first and the last', () => {
    const { p, lines, advance } = clocked(1000);
    for (let i = 0; i < 1000; i++) {
      advance(10);
      p.tick();
    }
    // 10 s of work: the first item, one line a second, and the last.
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines[0]).toBe('tokenize: 1/1000 (0%), 100 frames/s, ETA 10.0 s\n');
    expect(lines.at(-1)).toBe('tokenize: 1000/1000 (100%), 100 frames/s, done in 10.0 s\n');
  });

  it('counts a resumed job from where it picks up, not from zero', () => {
    const { p, lines, advance } = clocked(200);
    advance(5000); // loading the checkpoint
    p.resume(150);
    advance(2000);
    p.update(151);
    // One item in 2 s, 49 to go: without resume the 151 items would read as 30 items/s.
    expect(lines).toEqual(['tokenize: 151/200 (75%), 0.50 frames/s, ETA 1 min 38 s\n']);
  });

  it('writes durations a reader takes in at a glance', () => {
    expect(formatSeconds(4.25)).toBe('4.3 s');
    expect(formatSeconds(245)).toBe('4 min 05 s');
    expect(formatSeconds(3720)).toBe('1 h 02 min');
    expect(formatSeconds(Infinity)).toBe('?');
  });
});
