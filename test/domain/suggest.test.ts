import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {oneSlip} from '../../src/domain/suggest.js'

describe('oneSlip: one letter wrong, missing, extra, or two neighbours swapped', () => {
  it('names the slips a person makes, and nothing further', () => {
    for (const [typed, meant] of [
      ['emial', 'email'],
      ['emai', 'email'],
      ['emaill', 'email'],
      ['emaul', 'email'],
      ['totl', 'total'],
    ])
      expect(oneSlip(typed, meant), `${typed} ~ ${meant}`).toBe(true)
    for (const [typed, meant] of [
      ['email', 'email'],
      ['maile', 'email'],
      ['colour', 'color_x'],
      ['id', 'name'],
    ])
      expect(oneSlip(typed, meant), `${typed} ~ ${meant}`).toBe(false)
  })

  it('every single edit of a word is a slip of it, and the relation is symmetric', () => {
    const word = fc.stringMatching(/^[a-z_]{2,12}$/)
    fc.assert(
      fc.property(word, fc.nat(), fc.constantFrom('drop', 'swap', 'insert', 'replace'), fc.constantFrom(...'abcxyz_'), (w, at, edit, ch) => {
        const i = at % w.length
        const edited =
          edit === 'drop'
            ? w.slice(0, i) + w.slice(i + 1)
            : edit === 'insert'
              ? w.slice(0, i) + ch + w.slice(i)
              : edit === 'replace'
                ? w.slice(0, i) + ch + w.slice(i + 1)
                : i + 1 < w.length
                  ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2)
                  : w
        expect(oneSlip(edited, w)).toBe(edited !== w)
        expect(oneSlip(w, edited)).toBe(oneSlip(edited, w))
      }),
    )
  })
})
