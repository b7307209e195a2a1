import {describe, expect, it} from 'vitest'

import {expandAlias, shellWords} from '../../src/domain/alias.js'

describe('alias expansion', () => {
  it('splits words as a shell does: quotes group, a backslash escapes, an open quote is an error', () => {
    expect(shellWords(`orders refund $1 --reason "late delivery" --note 'a "b"' x\\ y ''`)).toEqual([
      'orders',
      'refund',
      '$1',
      '--reason',
      'late delivery',
      '--note',
      'a "b"',
      'x y',
      '',
    ])
    expect(() => shellWords('customers get "1')).toThrow(/unclosed " quote/)
  })

  it('$N takes the N-th argument, the arguments left over are appended, missing ones are counted', () => {
    expect(expandAlias('orders refund $1 --reason "$2"', ['7', 'too late', '--yes'])).toEqual({
      argv: ['orders', 'refund', '7', '--reason', 'too late', '--yes'],
      missing: 0,
    })
    expect(expandAlias('customers list --status active', ['--limit', '5']).argv).toEqual(['customers', 'list', '--status', 'active', '--limit', '5'])
    expect(expandAlias('orders get $2', ['1']).missing).toBe(1)
  })
})

describe('a flag typed after an alias', () => {
  const flags = {
    multiple: (name: string) => name === '--item',
    nameOf: (token: string) => (token === '-s' ? '--since' : /^--[^=]+/.exec(token)?.[0]),
    takesValue: (name: string) => ['--since', '--item', '--by'].includes(name),
  }

  it('overrides the same flag of the expansion (long, short or with =, and its value); a repeatable one adds', () => {
    expect(expandAlias('products top --since 7d --by day', ['--since', '30d'], flags).argv).toEqual([
      'products',
      'top',
      '--by',
      'day',
      '--since',
      '30d',
    ])
    expect(expandAlias('products top -s 7d', ['--since=30d'], flags).argv).toEqual(['products', 'top', '--since=30d'])
    expect(expandAlias('products top --since=7d', ['-s', '1d'], flags).argv).toEqual(['products', 'top', '-s', '1d'])
    expect(expandAlias('orders create --item 1:1', ['--item', '2:1'], flags).argv).toEqual(['orders', 'create', '--item', '1:1', '--item', '2:1'])
    // Words after -- are arguments, never flags to override.
    expect(expandAlias('api x -- --since 1', ['--since', '2'], flags).argv).toEqual(['api', 'x', '--', '--since', '1', '--since', '2'])
  })
})
