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
