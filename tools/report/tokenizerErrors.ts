// Which way a tokenizer's reconstruction errs on a log it did not train on: rays rendered short or long of their
// return, and the squared Chamfer split by direction (decoded → true: points off any surface; true → decoded: surfaces missed).
// Run: node --import tsx tools/report/tokenizerErrors.ts --log <dir> --model <tokenizer dir> [--model <dir>…]
// [--frames 26] [--ray-stride 8]
import { LogReader } from '../../datasets/logstore.ts';
import { nearestSquaredDistances } from '../../worldmodel/chamfer.ts';
import { type FrameReconstruction, reconstructFrame } from '../../worldmodel/evalTokenizer.ts';
import { sensorOrigin } from '../../worldmodel/sweep.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { spreadFrames } from '../commands/evalTokenizer.ts';
import { checkReportFlags, isMain, numberFlag } from './reportFlags.ts';

/** Shares of rays (0–1) by signed depth error, and the two directions of the squared Chamfer (mean over frames). */
export interface TokenizerErrorSplit {
  frames: number;
  rays: number;
  shortBy5m: number;
  shortBy1m: number;
  longBy1m: number;
  longBy5m: number;
  decodedToTrueM2: number;
  trueToDecodedM2: number;
  /** Share of decoded → true that the worst 1 % of decoded points make (mean over frames). */
  worstPercentShare: number;
  /** Mean depth L1 over all rays (m), and the part of it from rays short by more than 5 m, and long by more. */
  depthL1MeanM: number;
  depthL1FromShortBy5mM: number;
  depthL1FromLongBy5mM: number;
}

/** Accumulates frame reconstructions (eval-tokenizer's) into the split. */
export class TokenizerErrorTally {
  private frames = 0;
  private rays = 0;
  private short5 = 0;
  private short1 = 0;
  private long1 = 0;
  private long5 = 0;
  private decodedToTrue = 0;
  private trueToDecoded = 0;
  private worstShare = 0;
  private l1 = 0;
  private l1Short5 = 0;
  private l1Long5 = 0;

  add(r: Pick<FrameReconstruction, 'decoded' | 'input' | 'depthSigned'>): void {
    for (const d of r.depthSigned) {
      this.rays++;
      this.l1 += Math.abs(d);
      if (d < -5) this.l1Short5 -= d;
      if (d > 5) this.l1Long5 += d;
      if (d < -5) this.short5++;
      if (d < -1) this.short1++;
      if (d > 1) this.long1++;
      if (d > 5) this.long5++;
    }
    if (r.decoded.x.length === 0 || r.input.x.length === 0) return;
    const toTrue = nearestSquaredDistances(r.decoded, r.input);
    const toDecoded = nearestSquaredDistances(r.input, r.decoded);
    const sum = (a: Float64Array) => a.reduce((s, v) => s + v, 0);
    const total = sum(toTrue);
    const sorted = toTrue.slice().sort();
    const worst = sum(sorted.subarray(Math.floor(sorted.length * 0.99)));
    this.frames++;
    this.decodedToTrue += total / toTrue.length;
    this.trueToDecoded += sum(toDecoded) / toDecoded.length;
    this.worstShare += total > 0 ? worst / total : 0;
  }

  split(): TokenizerErrorSplit {
    const share = (k: number) => (this.rays ? k / this.rays : NaN);
    const perFrame = (v: number) => (this.frames ? v / this.frames : NaN);
    return {
      frames: this.frames,
      rays: this.rays,
      shortBy5m: share(this.short5),
      shortBy1m: share(this.short1),
      longBy1m: share(this.long1),
      longBy5m: share(this.long5),
      decodedToTrueM2: perFrame(this.decodedToTrue),
      trueToDecodedM2: perFrame(this.trueToDecoded),
      worstPercentShare: perFrame(this.worstShare),
      depthL1MeanM: share(this.l1),
      depthL1FromShortBy5mM: share(this.l1Short5),
      depthL1FromLongBy5mM: share(this.l1Long5),
    };
  }
}

const USAGE =
  'usage: node --import tsx tools/report/tokenizerErrors.ts --log <dir> --model <tokenizer dir> [--model <dir>…] ' +
  '[--frames 26] [--ray-stride 8]';

async function main(): Promise<void> {
  checkReportFlags(process.argv, USAGE, ['--log', '--model', '--frames', '--ray-stride']);
  const args = process.argv.slice(2);
  const logDir = args[args.indexOf('--log') + 1];
  const models = args.flatMap((a, i) => (a === '--model' ? [args[i + 1]] : []));
  if (!args.includes('--log') || models.length === 0) {
    process.stderr.write(`error: --log and at least one --model are required\n${USAGE}\n`);
    process.exit(2);
  }
  const frames = numberFlag('--frames', 26);
  const rayStride = numberFlag('--ray-stride', 8);
  const log = await LogReader.open(logDir);
  try {
    const origin = sensorOrigin(log.meta);
    for (const dir of models) {
      const tok = await Tokenizer.load(dir);
      try {
        const tally = new TokenizerErrorTally();
        for (const i of spreadFrames(log.frameCount, frames))
          tally.add(
            await reconstructFrame(tok, await log.readFrame(i), origin, `${logDir} frame ${i}`, rayStride),
          );
        console.log(JSON.stringify({ log: logDir, model: dir, ...tally.split() }));
      } finally {
        await tok.dispose();
      }
    }
  } finally {
    await log.close();
  }
}

if (isMain(import.meta.url)) await main();
