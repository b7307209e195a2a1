import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {defineConfig} from 'vitest/config'

/**
 * `npm run test:quick`, the inner loop: unit, service and in-process command tests (commands loaded from src/ through
 * vitest, test/helpers/in-process.ts), against in-process sandboxes. No bundle is built or run, no tmux, no browser, no
 * child CLI or sandbox process: a file that starts one (helpers/cli.ts `run` or `BIN`, a tmux session, a webhooks
 * session, Chromium, a detached sandbox) is the whole suite's (`npm test`). Property tests walk a sample of their space
 * here (COMMERCE_TEST_QUICK), the whole of it in `npm test`.
 * `npm run test:quick -- test/commands/orders.test.ts` (or a folder) runs one room of it.
 */
const ROOMS = ['api', 'base', 'bulk', 'commands', 'config', 'domain', 'io', 'sandbox', 'services', 'webhooks']
const STARTS_A_PROCESS =
  /import \{[^}]*\b(run|BIN)\b[^}]*\} from '\.\.\/helpers\/cli\.js'|helpers\/tmux\.js|import\('\.\.\/helpers\/cli\.js'\)|helpers\/webhooks-setup\.js|puppeteer|startDetached/

const quick = ROOMS.flatMap((room) =>
  readdirSync(join(import.meta.dirname, 'test', room))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${room}/${name}`)
    .filter((file) => !STARTS_A_PROCESS.test(readFileSync(join(import.meta.dirname, file), 'utf8'))),
)

export default defineConfig({
  test: {
    include: quick,
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    restoreMocks: true,
    setupFiles: ['./test/helpers/openapi-setup.ts'],
    env: {COMMERCE_TEST_QUICK: '1'},
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
})
