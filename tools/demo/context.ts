// What every demo step receives and adds to: the output folder, the shared data, and the report
// sections that become report.md at the end of `drivekit demo`.
import type { LogMeta } from '../../datasets/logstore.ts';

export interface DemoContext {
  /** Root output folder of this demo run (default out/demo). */
  outDir: string;
  /** Small settings for a fast run (tests, CI). */
  quick: boolean;
  /** Logs produced by earlier steps, by role ('kitti', 'synthetic', …). */
  logs: Map<string, { dir: string; meta: LogMeta }>;
  /** Markdown sections of the final report, in step order. */
  report: { title: string; body: string }[];
  /** Figures worth printing in the closing summary. */
  figures: Record<string, number | string>;
}

export interface DemoStep {
  name: string;
  run(ctx: DemoContext): Promise<void>;
}
