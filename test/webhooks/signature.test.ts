import {describe, expect, it} from 'vitest'
import {
  DEFAULT_TOLERANCE_SECONDS,
  computeSignature,
  describeVerifyFailure,
  parseSignatureHeader,
  signPayload,
  verifySignature,
  type VerifyFailure,
} from '../../src/domain/signature.js'

const SECRET = 'whsec_test'
const BODY = '{"id":"evt_1"}'
const T = 1_700_000_000
// printf '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test
const KNOWN = 'c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925'

describe('signature scheme', () => {
  it('matches an HMAC-SHA256 computed by openssl', () => {
    expect(computeSignature(SECRET, T, BODY)).toBe(KNOWN)
    expect(signPayload(SECRET, BODY, T)).toBe(`t=${T},v1=${KNOWN}`)
  })

  it('round-trips sign and verify, for strings and raw bytes alike', () => {
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x0a])
    expect(verifySignature(SECRET, signPayload(SECRET, BODY, T), BODY, {now: T})).toEqual({reason: null, timestamp: T, valid: true})
    expect(verifySignature(SECRET, signPayload(SECRET, binary, T), binary, {now: T}).valid).toBe(true)
    expect(verifySignature(SECRET, signPayload(SECRET, BODY, T), Buffer.from(BODY), {now: T}).valid).toBe(true)
  })

  it('refuses a changed body, a wrong secret and a changed timestamp as a mismatch', () => {
    const header = signPayload(SECRET, BODY, T)
    expect(verifySignature(SECRET, header, `${BODY} `, {now: T}).reason).toBe('mismatch')
    expect(verifySignature('whsec_other', header, BODY, {now: T}).reason).toBe('mismatch')
    expect(verifySignature(SECRET, header.replace(`t=${T}`, `t=${T + 1}`), BODY, {now: T}).reason).toBe('mismatch')
  })

  it('accepts several v1= entries when any one matches, in any position', () => {
    const wrong = 'a'.repeat(64)
    expect(verifySignature(SECRET, `t=${T},v1=${wrong},v1=${KNOWN}`, BODY, {now: T}).valid).toBe(true)
    expect(verifySignature(SECRET, `t=${T},v1=${KNOWN},v1=${wrong}`, BODY, {now: T}).valid).toBe(true)
    expect(verifySignature(SECRET, `t=${T},v1=${wrong},v1=${'b'.repeat(64)}`, BODY, {now: T}).reason).toBe('mismatch')
    expect(parseSignatureHeader(`t=${T},v1=${wrong},v0=zz,v1=${KNOWN}`)).toEqual({signatures: [wrong, KNOWN], timestamp: T})
  })

  it('accepts any of several secrets (rotation)', () => {
    expect(verifySignature(['whsec_old', SECRET], signPayload(SECRET, BODY, T), BODY, {now: T}).valid).toBe(true)
    expect(verifySignature(['whsec_old', 'whsec_older'], signPayload(SECRET, BODY, T), BODY, {now: T}).reason).toBe('mismatch')
  })

  it('compares fixed-length digests only: a short, long or non-hex v1 is ignored rather than thrown on', () => {
    // timingSafeEqual throws on buffers of different lengths; such candidates must never reach it.
    for (const bad of [KNOWN.slice(0, 63), `${KNOWN}0`, `${KNOWN.slice(0, 63)}g`]) {
      expect(() => verifySignature(SECRET, `t=${T},v1=${bad}`, BODY, {now: T})).not.toThrow()
      expect(verifySignature(SECRET, `t=${T},v1=${bad}`, BODY, {now: T}).reason).toBe('malformed')
      expect(verifySignature(SECRET, `t=${T},v1=${bad},v1=${KNOWN}`, BODY, {now: T}).valid).toBe(true)
    }
    expect(verifySignature(SECRET, `t=${T},v1=${KNOWN.toUpperCase()}`, BODY, {now: T}).valid).toBe(true)
  })

  it('applies the tolerance in both directions, inclusive at the bound', () => {
    const header = signPayload(SECRET, BODY, T)
    const at = (now: number, toleranceSeconds?: number) => verifySignature(SECRET, header, BODY, {now, toleranceSeconds}).reason
    expect(at(T + DEFAULT_TOLERANCE_SECONDS)).toBeNull()
    expect(at(T + DEFAULT_TOLERANCE_SECONDS + 1)).toBe('too_old')
    expect(at(T - DEFAULT_TOLERANCE_SECONDS)).toBeNull()
    expect(at(T - DEFAULT_TOLERANCE_SECONDS - 1)).toBe('too_new')
    expect(at(T + 11, 10)).toBe('too_old')
    expect(at(T - 11, 10)).toBe('too_new')
    expect(at(T + 10, 10)).toBeNull()
  })

  it('tells missing from malformed headers', () => {
    const cases: Array<[string | undefined | null, VerifyFailure]> = [
      [undefined, 'missing'],
      [null, 'missing'],
      ['', 'missing'],
      ['   ', 'missing'],
      [`v1=${KNOWN}`, 'malformed'],
      [`t=${T}`, 'malformed'],
      [`t=abc,v1=${KNOWN}`, 'malformed'],
      [`t=-5,v1=${KNOWN}`, 'malformed'],
      [`t=1.5,v1=${KNOWN}`, 'malformed'],
      [`t=${T},t=${T},v1=${KNOWN}`, 'malformed'],
      [`t=${T};v1=${KNOWN}`, 'malformed'],
      ['garbage', 'malformed'],
    ]
    for (const [header, reason] of cases) expect(verifySignature(SECRET, header, BODY, {now: T}).reason, String(header)).toBe(reason)
    // Spaces around entries, and unknown keys, are tolerated.
    expect(verifySignature(SECRET, ` t=${T} , v1=${KNOWN} , x=1`, BODY, {now: T}).valid).toBe(true)
  })

  it('describes each failure without the secret', () => {
    for (const reason of ['missing', 'malformed', 'mismatch', 'too_old', 'too_new'] as const) {
      const message = describeVerifyFailure(reason)
      expect(message.length).toBeGreaterThan(10)
      expect(message).not.toContain(SECRET)
    }
    expect(describeVerifyFailure('too_old')).not.toBe(describeVerifyFailure('too_new'))
  })
})
