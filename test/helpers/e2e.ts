/**
 * The set-up most end-to-end files share: one in-memory sandbox and one config directory for the file, and a
 * slot for a faulty server (test/helpers/faulty-server.ts) that is closed after each test.
 *
 *   const fx = useE2E({orderLimit: {limit: 1000, windowSeconds: 60}})
 *   it('...', async () => { fx.faulty = await startFaultyServer(...); run([...], {env: {COMMERCE_CONFIG_DIR: fx.dir}}) })
 *
 * Hooks run in the order they are registered, so a file's own beforeAll (seeding data) sees the sandbox.
 */
import {afterAll, afterEach, beforeAll} from 'vitest'

import type {SandboxOptions} from '../../src/sandbox/index.js'
import {tempConfigDir} from './cli.js'
import type {FaultyServer} from './faulty-server.js'
import {type TestSandbox, startTestSandbox} from './sandbox.js'

export interface E2EFixture {
  sb: TestSandbox
  /** COMMERCE_CONFIG_DIR for the file. */
  dir: string
  /** Closed (and cleared) after each test. */
  faulty: FaultyServer | undefined
}

export function useE2E(options: Omit<SandboxOptions, 'now'> = {}): E2EFixture {
  const fx = {faulty: undefined} as E2EFixture
  let cleanup = () => {}
  beforeAll(async () => {
    fx.sb = await startTestSandbox(options)
    const tmp = tempConfigDir()
    fx.dir = tmp.dir
    cleanup = tmp.cleanup
  })
  afterAll(async () => {
    await fx.sb?.close()
    cleanup()
  })
  afterEach(async () => {
    await fx.faulty?.close()
    fx.faulty = undefined
  })
  return fx
}
