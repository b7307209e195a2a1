/**
 * Messages for people on a terminal are wrapped at spaces to its width (IOStreams.info): no word, flag or backticked
 * command is split across lines, as the terminal itself would split them, at 60 and 80 columns.
 */
import {describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {wrapWords} from '../../src/io/wrap.js'

describe('messages wrap at word boundaries', () => {
  it.each([60, 80])('at %i columns: the not-logged-in hint keeps each command and flag whole', async (width) => {
    const dir = tempConfigDir()
    try {
      const term = await startInTmux(['customers', 'list', '--base-url', 'http://127.0.0.1:9'], {
        env: {COMMERCE_CONFIG_DIR: dir.dir, NO_COLOR: '1'},
        width,
      })
      expect(await term.waitForExit()).toBe(3)
      const lines = (await term.capture()).split('\n').filter((l) => l !== '' && !l.startsWith('[tty-exit'))
      for (const l of lines) {
        expect(l.length, l).toBeLessThanOrEqual(width)
        expect(l.split('`').length % 2, `a backticked command split: ${l}`).toBe(1)
      }
      const text = lines.join(' ')
      for (const whole of ['`commerce auth login --base-url http://127.0.0.1:9`', '`commerce auth login --sandbox`', 'COMMERCE_KEY_SECRET.'])
        expect(text).toContain(whole)
    } finally {
      dir.cleanup()
    }
  })

  it.each([60, 80])('at %i columns: help (the root description, examples) fits, no flag or quoted value split', async (width) => {
    for (const args of [['--help'], ['customers', 'update', '--help'], ['orders', 'create', '--help']]) {
      const term = await startInTmux(args, {env: {NO_COLOR: '1'}, width})
      expect(await term.waitForExit()).toBe(0)
      const lines = (await term.capture()).split('\n').filter((l) => !l.startsWith('[tty-exit'))
      for (const l of lines) {
        // Longer only when it is one word the width cannot hold (a JSON example).
        if (l.trim().includes(' ')) expect(l.length, `${args.join(' ')}: ${l}`).toBeLessThanOrEqual(width)
        expect(l.split('"').length % 2, `a quoted value split: ${l}`).toBe(1)
      }
      if (args[0] === 'customers') expect(lines.some((l) => l.includes('--name "Ada King"'))).toBe(true)
    }
  })

  it('wrapWords: greedy at spaces, indent kept, a token longer than the width left whole', () => {
    expect(wrapWords('pass --no-send-invite to skip the invitation emails', 20)).toBe('pass\n--no-send-invite to\nskip the invitation\nemails')
    expect(wrapWords('  email (--email): is not a valid address at all', 24)).toBe('  email (--email): is\n  not a valid address at\n  all')
    expect(wrapWords(`see ${'x'.repeat(30)} now`, 20)).toBe(`see\n${'x'.repeat(30)}\nnow`)
    expect(wrapWords('run `commerce webhooks secret ID` for it', 20)).toBe('run\n`commerce webhooks secret ID`\nfor it')
    expect(wrapWords('  $ commerce customers update 42 --name "Ada King" --plan x', 30)).toBe(
      '  $ commerce customers update\n  42 --name "Ada King" --plan\n  x',
    )
    // A report's detail column: continuations hang under it.
    expect(wrapWords('✗ profile  the base URL http://127.0.0.1:9 does not answer at all', 30, 11)).toBe(
      '✗ profile  the base URL\n           http://127.0.0.1:9\n           does not answer at\n           all',
    )
  })

  it('doctor at 80 columns: no word, URL or command split, continuations under the detail', async () => {
    const cfg = tempConfigDir()
    try {
      const long = `http://127.0.0.1:9/${'a-rather-long-prefix/'.repeat(2)}`.replace(/\/$/, '')
      const term = await startInTmux(['doctor'], {env: {COMMERCE_BASE_URL: long, COMMERCE_CONFIG_DIR: cfg.dir, NO_COLOR: '1'}, width: 80})
      await term.waitForExit(30_000)
      const lines = (await term.capture()).split('\n')
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80)
      expect(lines.some((l) => l.includes(long))).toBe(true)
      expect(lines.some((l) => /^-url|^url/.test(l.trim()))).toBe(false)
    } finally {
      cfg.cleanup()
    }
  })
})
