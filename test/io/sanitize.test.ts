/** The one sanitizer for service data on its way to a terminal or TSV. */
import {describe, expect, it} from 'vitest'

import {hasUnsafe, sanitize} from '../../src/io/sanitize.js'

describe('sanitize', () => {
  const evil = 'Eve\u001b]0;PWNED\u0007\u001b[31mRED'

  it('shows escape sequences escaped instead of writing them raw', () => {
    expect(sanitize(evil)).toBe('Eve\\e]0;PWNED\\a\\e[31mRED')
    expect(sanitize(evil, 'tsv')).toBe('Eve\\e]0;PWNED\\a\\e[31mRED')
    expect(sanitize(evil, 'terminal')).not.toContain('\u001b')
  })

  it('escapes other C0, DEL, C1 and bidi controls', () => {
    expect(sanitize('a\u0000b\u007fc\u0085d\u202ee')).toBe('a\\x00b\\x7fc\\x85d\\u202ee')
  })

  it('tabs and newlines: escaped in a cell, one space per run in TSV, kept (newlines) on a terminal', () => {
    expect(sanitize('a\tb\nc')).toBe('a\\tb\\nc')
    expect(sanitize('a\t\tb\r\nc', 'tsv')).toBe('a b c')
    expect(sanitize('a\nb', 'terminal')).toBe('a\nb')
    expect(sanitize('a\r\nb', 'terminal')).toBe('a\\r\nb')
  })

  it('leaves ordinary text, including non-Latin scripts and emoji, alone', () => {
    for (const text of ['Ana Lima', 'Zoë Ørsted', '山田太郎', 'Tea ☕ pot', '']) {
      expect(sanitize(text)).toBe(text)
      expect(hasUnsafe(text)).toBe(false)
    }
    expect(hasUnsafe(evil)).toBe(true)
  })
})
