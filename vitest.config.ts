import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/standalone runs apart (npm run test:standalone), on the packed builds.
    exclude: ['test/bench/**', 'test/standalone/**', 'node_modules/**'],
    // Two cores: keep the number of forked workers small; e2e tests spawn CLI processes of their own.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    restoreMocks: true,
    // A missing or stale bundle is built, a stale manifest named, before any test file: one file runs as it is.
    globalSetup: ['./test/helpers/global-setup.ts'],
    // Every answer of an in-process sandbox is checked against the OpenAPI document.
    setupFiles: ['./test/helpers/openapi-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
