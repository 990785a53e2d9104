// Test runner configuration: suites under test/, a generous timeout for the ones that spawn processes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time: vitest's default (cores − 1) runs them one by one on the project's 2-core
    // machines, and many tests mostly wait on the processes, sockets and browser they start (9.7 → 6.5 min).
    maxWorkers: 2,
    // Says once why the tests on ../shared/data skip, or fails the run under CI (see test/sharedDataCheck.ts).
    globalSetup: ['test/sharedDataCheck.ts'],
  },
});
