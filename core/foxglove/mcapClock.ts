// The clock of an MCAP export: Unix-epoch source times are kept; times counted from the log start (synthetic
// logs, simulated scenarios) are shifted to a fixed epoch so Foxglove shows a real date, not 1 January 1970.

/**
 * Times before 2000-01-01T00:00:00Z are taken as counted from the log start: no sensor log drivekit reads
 * predates it (KITTI 2011, nuScenes 2018, AV2 2020), and a relative clock stays far below it (31 years).
 */
export const RELATIVE_BEFORE_NS = 946_684_800_000_000_000n;

/**
 * The epoch a relative clock starts at: 2000-01-01T00:00:00Z. A fixed date (not the export's wall time) keeps
 * the file the same for the same input, shows elapsed time as the clock time of that day, and puts a rollout and
 * the LiDAR log rendered from it (both step × dt) on one timeline.
 */
export const SYNTHETIC_EPOCH_NS = 946_684_800_000_000_000n;

export interface McapClock {
  /** Added to every source time (0 for Unix-epoch sources). */
  offsetNs: bigint;
  /** 'unix' (the source's own epoch time) or 'relative' (shifted to SYNTHETIC_EPOCH_NS). */
  base: 'unix' | 'relative';
}

/** The clock for a source whose first time is `firstNs`. */
export function mcapClock(firstNs: bigint): McapClock {
  return firstNs < RELATIVE_BEFORE_NS
    ? { offsetNs: SYNTHETIC_EPOCH_NS, base: 'relative' }
    : { offsetNs: 0n, base: 'unix' };
}

/** The clock as an MCAP metadata record (`drivekit.clock`): a reader subtracts `time_offset_ns` to get source times. */
export const CLOCK_METADATA = 'drivekit.clock';
export const clockMetadata = (c: McapClock): Record<string, string> => ({
  time_base: c.base,
  time_offset_ns: String(c.offsetNs),
});
