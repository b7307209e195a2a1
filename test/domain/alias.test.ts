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
