// Importing any supported source into a drivekit log: picks the reader for the format, streams its
// sweeps into a LogWriter (NaN/Inf points dropped and counted), keeps labels, and commits atomically.
import fs from 'node:fs';
import { InputError } from '../core/errors.ts';
import type { Progress } from '../core/progress.ts';
import { LogWriter, type LogMeta } from './logstore.ts';
import type { ReaderOptions, SourceOpener, SourceSequence } from './source.ts';
import { formatHint } from './formatDetect.ts';

/** Formats `drivekit import --format` accepts, each loaded lazily (readers pull in their own libraries). */
export const READERS: Record<string, () => Promise<SourceOpener>> = {
  // Each reader module exports `open: SourceOpener`.
  kitti: () => import('./kitti.ts').then((m) => m.open),
  pcd: () => import('./pcd.ts').then((m) => m.open),
  nuscenes: () => import('./nuscenes.ts').then((m) => m.open),
  av2: () => import('./av2.ts').then((m) => m.open),
  las: () => import('./las.ts').then((m) => m.open),
  ply: () => import('./ply.ts').then((m) => m.open),
};

export interface ImportOptions extends ReaderOptions {
  overwrite?: boolean;
  /** What the caller knows about the recording that the source does not say, added to meta.json's extra. */
  extra?: Record<string, unknown>;
  logId?: string;
  progress?: (total: number) => Progress;
}

export async function importLog(
  inputPath: string,
  format: string,
  outDir: string,
  opts: ImportOptions = {},
): Promise<LogMeta> {
  const load = READERS[format];
  // An unknown format is a usage error (it names the option), whatever the path holds.
  if (!load)
    throw new InputError(
      '--format',
      `unknown format '${format}' (known: ${Object.keys(READERS).join(', ')})${fs.existsSync(inputPath) ? formatHint(inputPath, format) : ''}`,
    );
  if (!fs.existsSync(inputPath)) throw new InputError(inputPath, 'no such file or directory');
  const open = await load();
  let seq: SourceSequence;
  try {
    seq = await open(inputPath, opts);
  } catch (e) {
    // A reader refusing the path often means the wrong --format: say which one the path looks like.
    const hint = e instanceof InputError ? formatHint(inputPath, format) : '';
    throw hint
      ? new InputError(e instanceof InputError ? e.file : inputPath, (e as InputError).problem + hint)
      : e;
  }
  const outExisted = fs.existsSync(outDir);
  const extra: Record<string, unknown> = { importedFrom: inputPath, format, ...seq.extra, ...opts.extra };
  const writer = LogWriter.create(outDir, {
    logId: opts.logId,
    source: seq.source,
    sensor: seq.sensor,
    rateHz: seq.rateHz,
    overwrite: opts.overwrite,
    extra,
  });
  const bar = opts.progress?.(seq.frameCount);
  try {
    for await (const frame of seq.frames()) {
      writer.appendFrame(frame);
      bar?.tick();
    }
    const labels = seq.labels();
    if (labels) writer.setLabels(labels);
    // Readers may add what they counted while reading (e.g. dropped padding points); the writer
    // holds `extra` by reference and writes it into meta.json on close.
    Object.assign(extra, seq.extra);
    return await writer.close();
  } catch (e) {
    writer.abort();
    // Leave no trace of a failed import: the folder goes too when this import created it and it is empty.
    if (!outExisted && fs.existsSync(outDir) && fs.readdirSync(outDir).length === 0) fs.rmdirSync(outDir);
    throw e;
  } finally {
    bar?.stop();
  }
}
