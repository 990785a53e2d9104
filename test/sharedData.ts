// Tests on the real sample data: describe/it that skip when ../shared/data is absent (a newcomer's clone
// still runs everything else), and throw under CI, where the data is always present.
import { describe, it, type SuiteFactory, type TestFunction } from 'vitest';
import { assertNotCi, sharedDataMissing } from './sharedDataCheck.ts';

const missing = sharedDataMissing();
if (missing) assertNotCi(missing);

/** The one test that stands in for a skipped suite, its name saying why. */
const SKIPPED = `skipped: ${missing}`;

/**
 * A suite that needs the sample data. When it is absent the factory is not even run (suites often read
 * the data while they are collected), and one skipped test carries the reason.
 */
export function describeWithSharedData(name: string, factory: SuiteFactory): void {
  if (missing) describe(name, () => it.skip(SKIPPED, () => {}));
  else describe(name, factory);
}

/** A test that needs the sample data; skipped when it is absent. */
export function itWithSharedData(name: string, fn: TestFunction, timeout?: number): void {
  it.skipIf(missing !== null)(name, fn, timeout);
}
