/** `npm run demo` (scripts/demo.js) runs the whole tour against its own sandbox and leaves nothing running. */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'

import {ROOT, tempConfigDir} from '../helpers/cli.js'
import {checkRequestLog} from '../helpers/openapi-check.js'
import {startInTmux} from '../helpers/tmux.js'

const dir = tempConfigDir()
// Removing it checks every answer its sandbox logged against the OpenAPI document (test/helpers/openapi-check.ts).
afterAll(() => dir.cleanup())

it('the demo tour runs every step and stops its sandbox', {timeout: 120_000}, () => {
  const env: Record<string, string> = {COMMERCE_DEMO_DIR: dir.dir, HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8', PATH: process.env.PATH ?? ''}
  const res = spawnSync(process.execPath, [join(ROOT, 'scripts', 'demo.js')], {cwd: ROOT, encoding: 'utf8', env, timeout: 110_000})
  expect(res.status, res.stdout + res.stderr).toBe(0)
  for (const step of [
    '$ commerce sandbox start',
    '$ commerce auth login --sandbox',
    '$ commerce orders create',
    '$ commerce webhooks trigger order.paid',
    '$ commerce customers import',
    '$ commerce customers export',
    '$ commerce orders stats --since 14d',
    '$ commerce sandbox stop',
  ])
    expect(res.stdout).toContain(step)
  // The replayed order has the id of the first one, and the listener saw the event forwarded with 200.
  expect(res.stdout).toMatch(/order\.paid {8}evt_\w+ {2}-> 200/)
  // The bulk step: the import created both rows, its rerun nothing, and the export is CSV with a header row.
  expect(res.stdout).toMatch(/^created\t2$/m)
  expect(res.stderr).toContain('Nothing to send: every row was done by an earlier run of this import.')
  expect(res.stdout).toMatch(/^id,email,name,status,created_at,metadata$/m)
  expect(res.stdout).toContain('"Turing, Alan"')
  expect(res.stdout + res.stderr).toContain('Stopped the sandbox')
  // Its sandbox logged each answer; each one breaking the document fails this test (test/helpers/openapi-setup.ts).
  expect(checkRequestLog(dir.dir)).toBeGreaterThan(10)
})

it('runs to the end on a terminal (tmux, 80x24) with no key pressed, the pager as a user has it (less)', {timeout: 150_000}, async () => {
  const here = tempConfigDir()
  try {
    const term = await startInTmux([], {
      // The helper's COMMERCE_PAGER=cat hid that a report taller than the screen stopped the tour in less.
      env: {COMMERCE_DEMO_DIR: here.dir, COMMERCE_PAGER: undefined},
      height: 24,
      program: [process.execPath, join(ROOT, 'scripts', 'demo.js')],
      width: 80,
    })
    const code = await term.waitForExit(140_000)
    const screen = await term.capture()
    expect(code, screen).toBe(0)
    expect(screen).not.toContain('demo failed')
    expect(screen).toContain('Stopped the sandbox')
  } finally {
    here.cleanup()
  }
})
