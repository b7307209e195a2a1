/**
 * oclif's parse errors, raised by its own parser (public API: Parser.parse), in the CLI's words
 * (src/base/parse-errors.ts). If an upgrade of @oclif/core rewords one, its case here fails and says which.
 */
import {Args, Flags, Parser} from '@oclif/core'
import {describe, expect, it} from 'vitest'

import {parseErrorMessage} from '../../src/base/parse-errors.js'

async function wordingOf(argv: string[], spec: Parameters<typeof Parser.parse>[1]): Promise<string> {
  const error = (await Parser.parse(argv, spec).catch((e: unknown) => e)) as Error & {args?: Array<{name: string; description?: string}>}
  expect(error, 'the parse was expected to fail').toBeInstanceOf(Error)
  return parseErrorMessage(error.message.replace(/\n\s*See more help with --help\s*$/, ''), error.args)
}

describe('oclif parse errors in our words', () => {
  it('a required flag', async () => {
    expect(await wordingOf([], {flags: {'forward-to': Flags.string({required: true})}})).toBe('--forward-to is required.')
  })

  it('two flags that exclude each other: once, not once each way', async () => {
    const flags = {'public-url': Flags.string({exclusive: ['tunnel']}), tunnel: Flags.string({exclusive: ['public-url']})}
    expect(await wordingOf(['--tunnel', 'ngrok', '--public-url', 'https://x.example'], {flags})).toBe(
      '--public-url and --tunnel cannot be used together.',
    )
  })

  it('a value outside the options', async () => {
    expect(await wordingOf(['--status', 'bogus'], {flags: {status: Flags.option({options: ['paid', 'shipped'] as const})()}})).toBe(
      '--status must be one of paid, shipped (got "bogus").',
    )
  })

  it('an integer flag out of its range, or not an integer: the bound and the value, in words', async () => {
    const flags = {status: Flags.integer({max: 599, min: 400})}
    expect(await wordingOf(['--status', '99'], {flags})).toBe('--status must be at least 400 (got "99").')
    expect(await wordingOf(['--status', '600'], {flags})).toBe('--status must be at most 599 (got "600").')
    expect(await wordingOf(['--status', 'x'], {flags})).toBe('--status must be a whole number (got "x").')
  })

  it('a missing argument, named as the usage line names it', async () => {
    expect(await wordingOf([], {args: {id: Args.string({description: 'Customer id.', required: true})}})).toBe('Missing argument ID (customer id).')
  })

  it('a flag that needs another', async () => {
    const flags = {since: Flags.string({dependsOn: ['failed']}), failed: Flags.boolean()}
    expect(await wordingOf(['--since', '1h'], {flags})).toBe('--since needs --failed.')
  })

  it('anything else goes through as it is', () => {
    expect(parseErrorMessage('Unexpected argument: extra')).toBe('Unexpected argument: extra')
  })
})
