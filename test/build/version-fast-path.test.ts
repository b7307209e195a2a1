/**
 * bin/run.js prints `--version` and `-v` itself, without loading oclif: the line must stay the one oclif builds
 * (config.userAgent), which the `version` command prints through oclif. A change on either side fails here.
 */
import {describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'

describe('the --version fast path of bin/run.js', () => {
  it('prints exactly what the version command prints through oclif', async () => {
    const viaOclif = await run(['version'])
    expect(viaOclif.code).toBe(0)
    for (const flag of ['--version', '-v']) {
      const fast = await run([flag])
      expect(fast.code).toBe(0)
      expect(fast.stdout).toBe(viaOclif.stdout)
      expect(fast.stderr).toBe('')
    }
    expect(viaOclif.stdout).toMatch(/^commerce-service-cli\/\d+\.\d+\.\d+ \S+-\S+ node-v\d+/)
  })
})
