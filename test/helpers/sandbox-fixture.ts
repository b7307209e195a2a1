/**
 * The set-up files of every level share (a fixture, not a level: the runner says which level a test is at): one
 * in-memory sandbox and one config directory for the file, and a slot for a faulty server
 * (test/helpers/faulty-server.ts) that is closed after each test.
 *
 *   const fx = useSandboxFixture({orderLimit: {limit: 1000, windowSeconds: 60}})
 *   it('...', async () => { fx.faulty = await startFaultyServer(...); run([...], {env: {COMMERCE_CONFIG_DIR: fx.dir}}) })
 *
 * Hooks run in the order they are registered, so a file's own beforeAll (seeding data) sees the sandbox.
 */
import {afterAll, afterEach, beforeAll} from 'vitest'

import type {SandboxOptions} from '../../src/sandbox/index.js'
import {tempConfigDir} from './cli.js'
import type {FaultyServer} from './faulty-server.js'
import {type TestSandbox, startTestSandbox} from './sandbox.js'

export interface SandboxFixture {
  sb: TestSandbox
  /** COMMERCE_CONFIG_DIR for the file. */
  dir: string
  /** Closed (and cleared) after each test. */
  faulty: FaultyServer | undefined
}

export function useSandboxFixture(options: Omit<SandboxOptions, 'now'> = {}): SandboxFixture {
  const fx = {faulty: undefined} as SandboxFixture
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
