// Importing any supported source into a drivekit log: picks the reader for the format, streams its
// sweeps into a LogWriter (NaN/Inf points dropped and counted), keeps labels, and commits atomically.
import fs from 'node:fs';
import { InputError } from '../core/errors.ts';
import type { Progress } from '../core/progress.ts';
import { LogWriter, type LogMeta } from './logstore.ts';
import type { ReaderOptions, SourceOpener } from './source.ts';

/** Formats `drivekit import --format` accepts, each loaded lazily (readers pull in their own libraries). */
export const READERS: Record<string, () => Promise<SourceOpener>> = {
  // Each reader module exports `open: SourceOpener`.
};

export interface ImportOptions extends ReaderOptions {
  overwrite?: boolean;
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
  if (!load)
    throw new InputError(inputPath, `unknown format '${format}' (known: ${Object.keys(READERS).join(', ')})`);
  if (!fs.existsSync(inputPath)) throw new InputError(inputPath, 'no such file or directory');
  const open = await load();
  const seq = await open(inputPath, opts);
  const writer = LogWriter.create(outDir, {
    logId: opts.logId,
    source: seq.source,
    sensor: seq.sensor,
    rateHz: seq.rateHz,
    overwrite: opts.overwrite,
    extra: { importedFrom: inputPath, format, ...seq.extra },
  });
  const bar = opts.progress?.(seq.frameCount);
  try {
    for await (const frame of seq.frames()) {
      writer.appendFrame(frame);
      bar?.tick();
    }
    const labels = seq.labels();
    if (labels) writer.setLabels(labels);
    return await writer.close();
  } catch (e) {
    writer.abort();
    throw e;
  } finally {
    bar?.stop();
  }
}
