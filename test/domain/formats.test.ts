/**
 * The formats the spec names, as JSON Schema validators read them (found by a property-based run of a document
 * written from the spec): `uuid` is any RFC 4122 string form, `uri` has no spaces. One definition for the CLI's
 * checks and the sandbox's (src/domain/validate.ts).
 */
import {describe, expect, it} from 'vitest'

import {checkWebhookUrl, isUuid} from '../../src/domain/validate.js'

describe('formats', () => {
  it('uuid: the nil UUID, ffffffff-…, version 0 and other variants are UUIDs; other shapes are not', () => {
    for (const ok of [
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '123e4567-e89b-02d3-c456-426614174000',
      crypto.randomUUID(),
    ])
      expect(isUuid(ok), ok).toBe(true)
    for (const bad of [
      '',
      'not-a-uuid',
      '123e4567e89b12d3a456426614174000',
      '123e4567-e89b-12d3-a456-42661417400',
      '{123e4567-e89b-12d3-a456-426614174000}',
      'g23e4567-e89b-12d3-a456-426614174000',
    ])
      expect(isUuid(bad), bad).toBe(false)
  })

  it('uri: a webhook URL with a space or other characters a URI cannot hold is refused', () => {
    expect(checkWebhookUrl('https://hooks.example.com/a b')).toMatch(/not a valid URL/)
    expect(checkWebhookUrl('https://hooks.example.com/ü')).toMatch(/not a valid URL/)
    expect(checkWebhookUrl('https://hooks.example.com/a%20b?x=1#f')).toBeUndefined()
    expect(checkWebhookUrl('http://127.0.0.1:8080/hooks', true)).toBeUndefined()
  })
})
