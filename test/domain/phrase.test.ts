import {describe, expect, it} from 'vitest'

import {kebabFlag, option, phrase, spell} from '../../src/domain/phrase.js'
import {UsageError} from '../../src/errors.js'

describe('phrases name options, spelled by whoever knows the flags', () => {
  it('keeps options apart from the words, and nests', () => {
    const inner = phrase`${option('secretFile')}`
    const p = phrase`Give one of ${inner} or ${option('secretStdin')} (got ${42}).`
    expect(p.spell((o) => `<${o}>`)).toBe('Give one of <secretFile> or <secretStdin> (got 42).')
    expect(String(p)).toBe('Give one of secretFile or secretStdin (got 42).')
  })

  it('never takes a value for an option, even one shaped like it', () => {
    const value = JSON.parse('{"option": "x", "y": 1}') as unknown
    expect(phrase`${value}`.spell(() => 'FLAG')).toBe('[object Object]')
  })

  it('spells plain text unchanged, and the default flag is kebab case', () => {
    expect(spell('--x stays', () => 'no')).toBe('--x stays')
    expect(spell(undefined, () => 'no')).toBeUndefined()
    expect(kebabFlag('exitOnUnreachable')).toBe('--exit-on-unreachable')
    expect(kebabFlag('port')).toBe('--port')
  })

  it('an error keeps the phrase for the command layer and reads plainly elsewhere', () => {
    const error = new UsageError(phrase`${option('fromFile')} x.json: no such file.`, {hint: phrase`Pass ${option('fromFile')}.`})
    expect(error.message).toBe('fromFile x.json: no such file.')
    expect(error.hint).toBe('Pass fromFile.')
    expect(spell(error.text, kebabFlag)).toBe('--from-file x.json: no such file.')
    expect(spell(error.hintText, kebabFlag)).toBe('Pass --from-file.')
  })
})
