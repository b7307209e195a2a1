import {describe, expect, it} from 'vitest'

import {counted, formatCount, jsonText, sentences} from '../../src/domain/text.js'

describe('formatCount', () => {
  it("groups an integer as toLocaleString('en') does", () => {
    const values = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10_000, 20_505, 99_999, 100_000, 999_999, 1_000_000, 1_234_567, 12_345_678]
    for (let p = 0; p <= 15; p++) values.push(10 ** p - 1, 10 ** p, 10 ** p + 1, 3 * 10 ** p + 7)
    values.push(Number.MAX_SAFE_INTEGER)
    for (const n of [...values, ...values.map((v) => -v)]) expect(formatCount(n), String(n)).toBe(n.toLocaleString('en'))
  })

  it('gives any other number to toLocaleString', () => {
    for (const n of [-0, 1.5, 1234.5678, -0.25, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
      expect(formatCount(n), String(n)).toBe(n.toLocaleString('en'))
  })

  it('counted says the noun in the singular for one', () => {
    expect(counted(1, 'customer')).toBe('1 customer')
    expect(counted(20_505, 'customer')).toBe('20,505 customers')
    expect(counted(2, 'entry', 'entries')).toBe('2 entries')
  })
})

describe('jsonText', () => {
  it('is compact JSON with no control, bidi or separator character raw, and parses back to the value', () => {
    const value = {name: 'Eve\u001b]0;PWNED\u0007\u202eevil\u2028line\u2029para\u0085\u007f\u061c', n: 1, list: ['\u2066x\u2069']}
    const text = jsonText(value)
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/)
    expect(text).not.toMatch(/\n/)
    expect(JSON.parse(text)).toEqual(value)
    expect(text).toContain('\\u202e')
    expect(text).toContain('\\u2028')
  })
})

describe('sentences', () => {
  it('joins sentences with a stop where one has none (auth status: "The key pair was rejected" and its source)', () => {
    expect(sentences('The key pair was rejected', 'The key pair comes from COMMERCE_KEY_ID.')).toBe(
      'The key pair was rejected. The key pair comes from COMMERCE_KEY_ID.',
    )
    expect(sentences('Rejected (HTTP 422).', 'Log in again')).toBe('Rejected (HTTP 422). Log in again.')
    expect(sentences('A question?', '', 'Done.')).toBe('A question? Done.')
  })
})
