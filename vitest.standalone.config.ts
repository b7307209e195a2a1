import {defineConfig} from 'vitest/config'

/**
 * `npm run test:standalone`: the standalone builds (`npm run pack:standalone -- --deb` first) as a user gets them,
 * run with a PATH that holds no node. Apart from `npm test`, whose suite needs no build of that size.
 */
export default defineConfig({
  test: {
    include: ['test/standalone/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
