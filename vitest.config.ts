// Test runner configuration: suites under test/, a generous timeout for the ones that spawn processes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Says once why the tests on ../shared/data skip, or fails the run under CI (see test/sharedDataCheck.ts).
    globalSetup: ['test/sharedDataCheck.ts'],
  },
});
