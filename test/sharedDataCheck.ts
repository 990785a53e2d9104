// Whether the real sample data (../shared/data, or DRIVEKIT_SHARED_DATA) is here, and the run-wide check:
// one line when it is absent (those tests skip), an error under CI, which always has it.
import fs from 'node:fs';
import { realData } from '../core/paths.ts';

/** Why the tests that need the sample data cannot run, or null when it is here. */
export function sharedDataMissing(): string | null {
  const dir = realData();
  if (fs.existsSync(dir)) return null;
  return `no sample data at ${dir} (put ../shared/data beside the repository or set DRIVEKIT_SHARED_DATA)`;
}

/** CI always has the data, so a skip there would hide a failure: refuse instead. */
export function assertNotCi(missing: string): void {
  const ci = process.env.CI;
  if (ci && ci !== 'false' && ci !== '0')
    throw new Error(`CI=${ci}: every test must run, but there is ${missing}`);
}

/** vitest globalSetup: says once per run why tests skip, or fails the run under CI. */
export function setup(): void {
  const missing = sharedDataMissing();
  if (!missing) return;
  assertNotCi(missing);
  console.warn(`drivekit: skipping the tests that need real sample data: ${missing}`);
}
